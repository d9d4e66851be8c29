package audit

import (
	"bytes"
	"net/netip"
	"regexp"
	"sync"

	"github.com/skillctl/skillctl/pkg/findings"
)

// Categories of rules (SPEC §14).
const (
	HiddenText      = "hidden-text"
	PromptInjection = "prompt-injection"
	RemoteCode      = "remote-code"
	Credentials     = "credential-access"
	Exfiltration    = "exfiltration"
	Capability      = "capability"
)

// Scope says which text of a skill a rule reads.
type Scope int

const (
	// AllText: every text file, prose and code alike.
	AllText Scope = iota
	// Code: scripts, other non-Markdown text files, and the fenced code
	// blocks of Markdown files — what is run, not what is explained.
	Code
	// Scripts: script files only (scripts/, a known extension or a #!).
	Scripts
	// Markdown: Markdown files only.
	Markdown
	// Binary: files that are not text (checked by content).
	Binary
	// Skill: the skill's frontmatter (checked once per skill).
	Skill
)

// Rule is one check of the audit: what it finds, how bad it is, why it
// matters and how to fix it. A rule with an Expr matches it against the
// text of its scope; Keys (lowercase) must appear in the file for the
// pattern to be tried at all, so that most files cost one pass. A rule
// without an Expr is checked by code in audit.go.
type Rule struct {
	ID       string
	Severity string
	Category string
	Scope    Scope
	// Message says what was found; the matched text follows it.
	Message string
	Why     string
	Fix     string
	Keys    []string
	// Expr is the rule's pattern (RE2 syntax), compiled when an audit
	// first runs, so that other commands do not pay for it at start-up.
	Expr string
	// InDocs, when set, is the severity of a match in a Markdown file
	// other than SKILL.md: documentation that shows a command (an
	// installer piped to a shell, a line for ~/.bashrc) is what a reviewer
	// reads twice, not an attack by itself, while the same line in a
	// script runs and in SKILL.md is what the agent is told to do.
	InDocs string
	// Quoted, when set, is the severity of a match in quotation marks:
	// an example of the phrase, as documentation about it quotes it.
	Quoted string
	// Negatable: a match right after "never", "do not" and the like is
	// the opposite instruction, and does not count.
	Negatable bool
	// Keep, when set, decides whether a match counts.
	Keep func(match []byte) bool
}

// Rules is the audit's rule table. Severities follow SPEC §14: critical is
// an attack with no honest reading, high an attack pattern that honest
// skills rarely need, medium and low what a reviewer should look at.
var Rules = []Rule{
	// Hidden text.
	{ID: "unicode-tag-characters", Severity: findings.Critical, Category: HiddenText, Scope: AllText,
		Message: "Unicode tag characters (U+E0000–E007F) hide text",
		Why:     "Tag characters are invisible in editors and on GitHub but models read them: a classic way to smuggle instructions past a reviewer.",
		Fix:     "Remove the tag characters; nothing legitimate in a skill needs them."},
	{ID: "bidi-control", Severity: findings.High, Category: HiddenText, Scope: AllText,
		Message: "bidirectional control characters reorder the text",
		Why:     "Bidi overrides (U+202A–202E, U+2066–2069) make text display in another order than it is read (Trojan Source), so code or instructions look harmless to a reviewer.",
		Fix:     "Remove the control characters; write right-to-left text without explicit overrides."},
	{ID: "zero-width-characters", Severity: findings.Medium, Category: HiddenText, Scope: AllText,
		Message: "zero-width characters inside the text",
		Why:     "Zero-width spaces and joiners are invisible; they can split keywords past filters or carry hidden data.",
		Fix:     "Remove them (a byte-order mark belongs only at the very start of a file)."},
	{ID: "html-comment-instructions", Severity: findings.High, Category: HiddenText, Scope: Markdown,
		Message: "an HTML comment speaks to the agent",
		Why:     "HTML comments are not rendered on GitHub or in previews, but the agent reads them: instructions there are hidden from the person who installs the skill.",
		Fix:     "Put instructions in the visible text, or remove the comment.",
		Keys:    []string{"<!--"},
		Expr:    `(?is)<!--(?:[^-]|-[^-]|--[^>])*?\b(?:ignore (?:all |any |the )?(?:previous|prior|above)|disregard|you (?:are|must|should|will)|(?:the |an? )?(?:assistant|agent|ai|llm|model|claude)\b[^>]{0,40}\b(?:must|should|will|now)|do not (?:tell|mention|reveal|show)|system prompt|secretly|without (?:telling|asking))(?:[^-]|-[^-]|--[^>])*?-->`},

	{ID: "file-not-read", Severity: findings.Info, Category: HiddenText, Scope: Binary,
		Message: "a file was not audited in full",
		Why:     "What cannot be read, or lies past the first 8 MiB of a file, may hide content the audit did not see.",
		Fix:     "Keep skill files small and readable."},

	// Prompt injection aimed at the agent.
	{ID: "ignore-instructions", Severity: findings.High, Category: PromptInjection, Scope: AllText, Quoted: findings.Medium, Negatable: true,
		Message: "tells the agent to ignore its instructions",
		Why:     "A skill that overrides the instructions before it is prompt injection: it takes control of the agent away from the user and the system.",
		Fix:     "Remove the sentence; a skill adds instructions, it never cancels others.",
		Keys:    []string{"ignore", "disregard", "forget", "override"},
		Expr:    `(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|system|original|safety)\s+(?:instructions?|prompts?|rules|guidelines|directives|messages)\b`},
	{ID: "conceal-from-user", Severity: findings.High, Category: PromptInjection, Scope: AllText, Quoted: findings.Medium,
		Message: "tells the agent to hide what it does from the user",
		Why:     "Instructions to keep the user uninformed are how a malicious skill acts unseen: honest skills have nothing to hide from the person they serve.",
		Fix:     "Remove the instruction; report actions to the user.",
		Keys:    []string{"not tell", "n't tell", "never tell", "not inform", "n't inform", "never inform", "not notify", "n't notify", "not alert", "n't alert", "not mention", "n't mention", "never mention", "not reveal", "n't reveal", "never reveal", "not show", "n't show", "never show", "not let", "n't let", "never let", "from the user", "without telling", "without informing", "without notifying", "without alerting", "user must not", "user should not", "user must never", "user should never"},
		Expr:    `(?i)\b(?:(?:do not|don't|never)\s+(?:tell|inform|notify|alert|mention (?:this|it|anything) to|reveal (?:this|it) to|show (?:this|it) to|let)\s+the\s+user\b|hide\s+(?:this|it|these|them|the \w+)\s+from\s+the\s+user|(?:keep|make)\s+(?:this|it)\s+(?:secret|hidden)\s+from\s+the\s+user|without\s+(?:telling|informing|notifying|alerting)\s+the\s+user|the\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|find out|see|notice))`},
	{ID: "disable-safety", Severity: findings.High, Category: PromptInjection, Scope: AllText, Quoted: findings.Medium, Negatable: true,
		Message: "tells the agent to turn off safety or approval",
		Why:     "Bypassing permission prompts, safety checks or the sandbox lets everything else in the skill run without the user seeing it.",
		Fix:     "Remove the instruction; let the agent ask for approval.",
		Keys:    []string{"bypass", "disable", "turn off", "auto-approve", "autoapprove", "auto approve", "skip the", "skip all", "skip any", "skip permission", "skip approval", "skip sandbox", "skip safety", "skip guardrail"},
		Expr:    `(?i)(?:\bbypass(?:ing)?\s+(?:the\s+|all\s+|any\s+)?(?:safety|security checks|approvals?|permission (?:prompts?|checks?)|sandbox|guardrails)\b|\b(?:disable|turn off|skip)\s+(?:the\s+|all\s+|any\s+)?(?:safety (?:checks|features|filters)|sandbox(?:ing)?|approvals?|permission (?:prompts?|checks?)|guardrails)\b|\bauto-?approve\s+(?:all|every|any)\b)`},
	{ID: "unattended-agent", Severity: findings.Medium, Category: PromptInjection, Scope: AllText,
		Message: "runs an agent with its approvals switched off",
		Why:     "Flags such as --dangerously-skip-permissions or --yolo let another agent act without any prompt; whatever that agent is asked, it does.",
		Fix:     "Run it with its normal approvals, or inside a sandbox that limits what it can touch.",
		Keys:    []string{"dangerously", "yolo"},
		Expr:    `(?i)(?:--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|--dangerously-bypass-approvals|--yolo\b)`},
	{ID: "exfiltrate", Severity: findings.High, Category: PromptInjection, Scope: AllText, Quoted: findings.Medium,
		Message: "tells the agent to send the user's data away",
		Why:     "An instruction to upload or send secrets, keys, files or the conversation to a third party is data theft by the agent's own hand.",
		Fix:     "Remove the instruction.",
		Keys:    []string{"exfiltrat", "api key", "secret", "credential", "password", "private key", "ssh key", "token", "environment variables", "conversation", "chat history", ".env"},
		Expr:    `(?i)\b(?:exfiltrate\s+(?:the\s+|all\s+|any\s+)?(?:user|data|secrets?|credentials?|keys?|tokens?|files?)|(?:send|upload|post|forward|transmit)\s+(?:all\s+|any\s+|the\s+|their\s+|the user's\s+|your\s+)*(?:api keys?|secrets?|credentials|passwords?|private keys?|ssh keys?|tokens?|environment variables|conversation|chat history|\.env)\b[^.\n]{0,40}\b(?:to|into)\s+(?:https?://|the (?:server|endpoint|webhook|url)|this (?:url|endpoint|webhook)|my\b))`},

	// Remote code.
	{ID: "pipe-to-shell", Severity: findings.High, Category: RemoteCode, Scope: AllText, InDocs: findings.Medium,
		Message: "downloads code and runs it unseen",
		Why:     "Piping a download into a shell or interpreter runs whatever the server sends today, without the user or a review seeing it.",
		Fix:     "Download to a file, check its digest, and run it; or install from a package manager.",
		Keys:    []string{"curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod"},
		Expr:    `(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n;&]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|c)?sh|python[23]?|perl|ruby|node|php|iex|invoke-expression)\b`},
	{ID: "shell-from-url", Severity: findings.High, Category: RemoteCode, Scope: AllText, InDocs: findings.Medium,
		Message: "runs a script straight from a URL",
		Why:     "Running the output of a download (process substitution, $(...)) executes code nobody reviewed, and it can change at any time.",
		Fix:     "Download to a file, check its digest, and run it.",
		Keys:    []string{"curl", "wget"},
		Expr:    `(?i)(?:\b(?:ba|z|k)?sh\s+(?:-\w+\s+)*["']?(?:<\(|\$\()\s*(?:curl|wget)\b|\bsource\s+<\(\s*(?:curl|wget)\b|\.\s+<\(\s*(?:curl|wget)\b|\b(?:python[23]?|perl|ruby|node)\s+-c\s+["']?\$\(\s*(?:curl|wget)\b)`},
	{ID: "download-and-run", Severity: findings.High, Category: RemoteCode, Scope: AllText, InDocs: findings.Medium,
		Message: "downloads a program and runs it",
		Why:     "A file fetched and then executed in the same command runs whatever the server sent, unchecked.",
		Fix:     "Check the download against a known digest before running it, or install from a package manager.",
		Keys:    []string{"curl", "wget", "iwr", "invoke-webrequest"},
		Expr:    `(?i)\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;&]*?(?:\s-o\s*|\s-O\s+|--output[= ]|--output-document[= ]|-outfile\s+)["']?([\w./~$-]+)["']?[^\n]*?(?:&&|;)\s*(?:(?:sudo\s+)?chmod\s+(?:\+x|[0-7]*[1357][0-7]*)\s+["']?[\w./~$-]+["']?\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:(?:ba|z|k)?sh\s+|python[23]?\s+|perl\s+|ruby\s+|node\s+|\./|/tmp/|start-process\s+|&\s*)`},
	{ID: "decode-and-execute", Severity: findings.Critical, Category: RemoteCode, Scope: AllText,
		Message: "decodes hidden code and runs it",
		Why:     "Base64 or hex decoded straight into a shell or eval hides what runs from every reader: the signature of a payload.",
		Fix:     "Ship the code in the clear.",
		Keys:    []string{"base64", "b64decode", "atob", "frombase64string", "fromhex", "xxd", "unhexlify", "decompress"},
		Expr:    `(?i)(?:\b(?:eval|(?:ba|z|k)?sh\s+-c)\s+["']?\$\([^)\n]*\bbase64\s+(?:-d|--decode|-D)\b|\bbase64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:sudo\s+)?(?:(?:ba|z|k|da)?sh|python[23]?|perl|ruby|node)\b|\|\s*base64\s+(?:-d|--decode|-D)\s*\|\s*(?:(?:ba|z|k|da)?sh|python[23]?|perl)\b|\bxxd\s+-r\s+-p\b[^\n]*\|\s*(?:(?:ba|z)?sh|python[23]?)\b|\b(?:exec|eval)\s*\(\s*(?:compile\s*\(\s*)?(?:base64\.b64decode|base64\.decodebytes|codecs\.decode|bytes\.fromhex|binascii\.unhexlify|binascii\.a2b_base64|zlib\.decompress|marshal\.loads|__import__\(\s*['"](?:base64|zlib|codecs|marshal)['"]\))|\beval\s*\(\s*(?:atob|Buffer\.from)\s*\(|\b(?:iex|invoke-expression)\b[^\n]*frombase64string|frombase64string[^\n]*\|\s*(?:iex|invoke-expression)\b)`},
	{ID: "eval-fetched", Severity: findings.Critical, Category: RemoteCode, Scope: AllText,
		Message: "evaluates code fetched from the network",
		Why:     "eval/exec of a download runs remote code inside the skill's process: the server decides what the skill does.",
		Fix:     "Ship the code with the skill.",
		Keys:    []string{"requests.get", "urlopen", "httpx.get", "fetch(", "$(curl", "$( curl", "$(wget", "downloadstring", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"},
		Expr:    `(?i)(?:\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get|fetch|await\s+fetch)\s*\(|\beval\s+["']?\$\(\s*(?:curl|wget)\b|\b(?:iex|invoke-expression)\s*\(?\s*\(?\s*(?:new-object\s+(?:system\.)?net\.webclient\)?\.downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b|\.downloadstring\([^)]*\)\s*\|\s*(?:iex|invoke-expression)\b)`},
	{ID: "obfuscated-script", Severity: findings.Medium, Category: RemoteCode, Scope: Scripts,
		Message: "a long encoded blob in a script",
		Why:     "A script that carries kilobytes of base64 or hex hides what it does from review.",
		Fix:     "Ship data as a separate file in assets/ and code in the clear."},
	{ID: "executable-binary", Severity: findings.High, Category: RemoteCode, Scope: Binary,
		Message: "a compiled executable",
		Why:     "A binary (ELF, Mach-O, PE) cannot be reviewed; whatever it does runs with the user's rights.",
		Fix:     "Ship source code, or install the tool from a package manager."},
	{ID: "archive-in-scripts", Severity: findings.Medium, Category: RemoteCode, Scope: Binary,
		Message: "an archive inside scripts/",
		Why:     "An archive in scripts/ is code that is unpacked later, out of sight of a review of the skill.",
		Fix:     "Ship the files unpacked."},

	// Credential access.
	{ID: "ssh-keys", Severity: findings.High, Category: Credentials, Scope: Code, InDocs: findings.Medium,
		Message: "reads SSH keys",
		Why:     "A skill has no need for the user's private keys; reading them is the first step of stealing them.",
		Fix:     "Remove the access; let git or ssh use the keys themselves.",
		Keys:    []string{".ssh"},
		Expr:    `(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|expanduser\(\s*["']~|os\.homedir\(\)|Path\.home\(\))[/\\"' ,+]*\.ssh\b(?:[/\\](?:id_\w+|identity|\*))?`},
	{ID: "cloud-credentials", Severity: findings.High, Category: Credentials, Scope: Code, InDocs: findings.Medium,
		Message: "reads stored cloud or registry credentials",
		Why:     "Credential files give whoever reads them the user's cloud, cluster or package accounts.",
		Fix:     "Use the provider's CLI or SDK, which reads them itself, and only the access the skill needs.",
		Keys:    []string{".aws", "gcloud", "application_default_credentials", ".azure", ".kube", ".docker", ".npmrc", ".pypirc", ".netrc", ".git-credentials"},
		Expr:    `(?:\.aws[/\\]credentials|\.config[/\\]gcloud[/\\](?:credentials\.db|access_tokens\.db|legacy_credentials)|application_default_credentials\.json|\.azure[/\\](?:accessTokens\.json|msal_token_cache)|\.kube[/\\]config|\.docker[/\\]config\.json|~[/\\]\.npmrc|~[/\\]\.pypirc|~[/\\]\.netrc|\.git-credentials)`},
	{ID: "browser-data", Severity: findings.High, Category: Credentials, Scope: Code, InDocs: findings.Medium,
		Message: "reads browser profiles (cookies, saved passwords)",
		Why:     "Browser cookies and password stores open every account the user is logged into.",
		Fix:     "Remove the access.",
		Keys:    []string{"login data", "cookies", "logins.json", "key4.db", "local state"},
		Expr:    `(?i)(?:google[/\\ ]chrome|chromium|bravesoftware|microsoft[/\\]edge|mozilla[/\\]firefox|\.mozilla[/\\]firefox|firefox[/\\]profiles)[^\n"']{0,80}(?:login data|cookies(?:\.sqlite)?|logins\.json|key4\.db|local state)`},
	{ID: "keychain-access", Severity: findings.High, Category: Credentials, Scope: Code, InDocs: findings.Medium,
		Message: "reads the system keychain",
		Why:     "The keychain holds the user's passwords and tokens for every service.",
		Fix:     "Remove the access; ask the user for the one credential the skill needs.",
		Keys:    []string{"find-generic-password", "find-internet-password", "dump-keychain", "secret-tool", "keychains", "kwallet", "credread", "vaultcmd"},
		Expr:    `(?i)(?:\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bsecret-tool\s+lookup\b|Library/Keychains|\bkwallet-query\b|\bCredRead\w*\(|\bvaultcmd\b)`},
	{ID: "dotenv-read", Severity: findings.Medium, Category: Credentials, Scope: Code,
		Message: "reads a .env file directly",
		Why:     ".env files hold secrets; a skill that reads them whole can pass them on.",
		Fix:     "Read the one variable the skill needs from the environment, and declare it in permissions (env:NAME).",
		Keys:    []string{".env"},
		Expr:    `(?:\bcat\s+|\btype\s+|\bopen\(\s*|read_text\(\s*|readFileSync\(\s*|Get-Content\s+)["']?(?:[\w./~$-]*/)?\.env["')\s]`},
	{ID: "environment-dump", Severity: findings.High, Category: Credentials, Scope: Code, InDocs: findings.Medium,
		Message: "dumps the whole environment",
		Why:     "The environment holds API keys and tokens; dumping or sending all of it is how they are stolen.",
		Fix:     "Read only the variables the skill needs.",
		Keys:    []string{"printenv", "env |", "env|", "env >", "env>", "dict(os.environ", "(os.environ)", "os.environ.copy()", "stringify(process.env", "(process.env)", "get-childitem env:"},
		Expr:    `(?i)(?:\bprintenv\s*(?:\||>)|(?:^|[;&|(]\s*)env\s*(?:\||>)|json\.dumps\(\s*(?:dict\(\s*)?os\.environ\b|\bdict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)\s*\)|JSON\.stringify\(\s*process\.env\s*\)|Object\.(?:entries|keys)\(\s*process\.env\s*\)|get-childitem\s+env:\s*\|)`},

	// Exfiltration endpoints.
	{ID: "exfiltration-endpoint", Severity: findings.High, Category: Exfiltration, Scope: AllText,
		Message: "a request-catcher, paste or webhook endpoint",
		Why:     "Services that collect arbitrary requests or pastes are where stolen data is sent; honest skills talk to the APIs they are about.",
		Fix:     "Remove the endpoint.",
		Keys:    []string{"webhook.site", "requestbin", "pipedream.net", "hookbin", "beeceptor", "ngrok", "interact.sh", "oast.", "burpcollaborator", "canarytokens", "pastebin.com", "paste.ee", "hastebin", "transfer.sh", "0x0.st", "termbin", "/api/webhooks", "api.telegram.org/bot"},
		Expr:    `(?i)\b(?:webhook\.site|[\w.-]*requestbin\.\w+|[\w.-]*pipedream\.net|hookbin\.com|[\w.-]*beeceptor\.com|[\w.-]+\.ngrok(?:-free)?\.(?:io|app|dev)|[\w.-]*interact\.sh|[\w.-]+\.oast\.(?:fun|pro|live|site|online|me)|[\w.-]*burpcollaborator\.net|canarytokens\.(?:com|org)|pastebin\.com|paste\.ee|hastebin\.com|transfer\.sh|0x0\.st|termbin\.com|discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot)`},
	{ID: "raw-ip-url", Severity: findings.Medium, Category: Exfiltration, Scope: AllText, Keep: publicIP,
		Message: "a URL to a bare public IP address",
		Why:     "Honest services have names; a bare IP address is how a throw-away server receives data or serves payloads.",
		Fix:     "Use the service's host name.",
		Keys:    []string{"http://1", "http://2", "http://3", "http://4", "http://5", "http://6", "http://7", "http://8", "http://9", "https://1", "https://2", "https://3", "https://4", "https://5", "https://6", "https://7", "https://8", "https://9"},
		Expr:    `(?i)\bhttps?://(?:\d{1,3}\.){3}\d{1,3}\b`},
	{ID: "dns-exfiltration", Severity: findings.High, Category: Exfiltration, Scope: Code, InDocs: findings.Medium,
		Message: "puts command output into a DNS lookup",
		Why:     "A DNS query whose name is built from data carries that data out past most firewalls.",
		Fix:     "Remove it.",
		Keys:    []string{"nslookup", "dig ", "host "},
		Expr:    `\b(?:nslookup|dig|host)\s+[^\n|;]*(?:\$\(|` + "`" + `)[^\n]*\.[a-zA-Z]{2,}`},
	{ID: "markdown-image-data", Severity: findings.High, Category: Exfiltration, Scope: Markdown,
		Message: "an image or link whose URL carries data in the query",
		Why:     "An agent that renders a Markdown image fetches its URL: placeholders in the query send the data to that server without a click.",
		Fix:     "Use fixed URLs without placeholders.",
		Keys:    []string{"](http"},
		Expr:    `(?i)!?\[[^\]\n]*\]\(\s*https?://[^)\s]*\?[^)\s]*(?:\{\{?|\$\{|\$[A-Z_]|%7B|<[a-z_]+>|\[(?:data|secret|token|key|password|conversation|history|context)\])[^)\s]*\)`},

	// Capability mismatch and persistence.
	{ID: "persistence", Severity: findings.High, Category: Capability, Scope: Code, InDocs: findings.Medium,
		Message: "installs itself to run again later",
		Why:     "Writing to shell start-up files, cron, launch agents, services or git hooks keeps code running after the skill is done, without the user asking.",
		Fix:     "Remove it; a skill runs when it is invoked.",
		Keys:    []string{"bashrc", "zshrc", ".profile", "_profile", "zprofile", "zshenv", "config.fish", "crontab", "/etc/cron", "launchagents", "launchdaemons", ".git/hooks", "systemctl", "/etc/systemd", "currentversion\\run", "schtasks", "launchctl"},
		Expr:    `(?i)(?:>>?\s*["']?(?:~|\$HOME|\$\{HOME\})/\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|config/fish/config\.fish)\b|\bcrontab\s+(?:-[a-z]*\s+)*(?:-|[\w./$~-]+)\s*$|\bcrontab\s+-l\b[^\n]*\|\s*crontab\b|/etc/cron(?:tab|\.d)|Library/Launch(?:Agents|Daemons)|\.git/hooks/[\w-]+|\bsystemctl\s+(?:--user\s+)?enable\b|/etc/systemd/system/|CurrentVersion\\Run\b|\bschtasks\s+/create\b|\blaunchctl\s+(?:load|bootstrap)\b)`},
	{ID: "broad-allowed-tools", Severity: findings.Medium, Category: Capability, Scope: Skill,
		Message: "allowed-tools grants every tool or command by wildcard",
		Why:     "Bash(*) or * in allowed-tools lets the agent run anything without asking while the skill is active; a skill should name the commands it needs.",
		Fix:     "Scope it: Bash(git status:*), Bash(python3 scripts/*)."},
	{ID: "unscoped-bash", Severity: findings.Low, Category: Capability, Scope: Skill,
		Message: "allowed-tools grants Bash without a scope",
		Why:     "A plain Bash in allowed-tools pre-approves every shell command while the skill is active.",
		Fix:     "Scope it to the commands the skill runs: Bash(python3 scripts/*)."},
	{ID: "undeclared-network", Severity: findings.Low, Category: Capability, Scope: Skill,
		Message: "scripts use the network, and permissions does not say so",
		Why:     "A skill that declares what it needs can be run with less; skillctl run's sandbox cuts the network off unless it is declared.",
		Fix:     "Add network to permissions in the frontmatter."},
	{ID: "undeclared-secret", Severity: findings.Low, Category: Capability, Scope: Skill,
		Message: "scripts read secret environment variables that permissions does not name",
		Why:     "Secrets a skill reads should be declared, so that the user knows and the sandbox passes only those.",
		Fix:     "Add env:NAME to permissions for each variable."},
}

// publicIP keeps a URL whose host is a public address: loopback, private,
// link-local and documentation-free local addresses are how honest skills
// talk about their own machine and network.
func publicIP(match []byte) bool {
	host := string(match[bytes.Index(match, []byte("//"))+2:])
	ip, err := netip.ParseAddr(host)
	return err == nil && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !ip.IsUnspecified()
}

// ruleByID is the table by id.
var ruleByID = func() map[string]*Rule {
	m := map[string]*Rule{}
	for i := range Rules {
		m[Rules[i].ID] = &Rules[i]
	}
	return m
}()

// Lookup returns the rule with the id.
func Lookup(id string) (*Rule, bool) { r, ok := ruleByID[id]; return r, ok }

// Networking and secret use in scripts, for the capability rules,
// compiled on first use.
var (
	networkUse = lazyRegexp(`(?i)(?:\b(?:curl|wget)\s|\brequests\.(?:get|post|put|delete|session)\b|\burllib\.request\b|\burlopen\(|\bhttp\.client\b|\bhttpx\.|\baiohttp\b|\bfetch\(\s*["'` + "`" + `]https?:|\baxios\b|\bsocket\.(?:socket|create_connection)\b|\bnet/http\b|\binvoke-(?:webrequest|restmethod)\b)`)
	secretEnv  = lazyRegexp(`(?:os\.environ(?:\.get)?[\[(]\s*["']|os\.getenv\(\s*["']|process\.env\.|process\.env\[\s*["']|\$\{?|getenv\(\s*")([A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS))\b`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// patterns are the rules' compiled Exprs, by index in Rules (nil for a
// rule checked by code).
var patterns = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(Rules))
	for i, r := range Rules {
		if r.Expr != "" {
			out[i] = regexp.MustCompile(r.Expr)
		}
	}
	return out
})
