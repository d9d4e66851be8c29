package run

// NoteKind says what a Note is about.
type NoteKind int

// Kinds of Note.
const (
	// NoteIsolation: how the script is isolated (Isolation).
	NoteIsolation NoteKind = iota
	// NoteNetworkNotGranted: the skill declares network access and runs without it.
	NoteNetworkNotGranted
	// NoteNetworkNotDeclared: network was granted to a skill that does not declare it.
	NoteNetworkNotDeclared
	// NoteEnvReserved: a granted variable (Names[0]) is one run sets itself.
	NoteEnvReserved
	// NoteEnvNotDeclared: a granted variable (Names[0]) the skill does not declare.
	NoteEnvNotDeclared
	// NoteEnvUnset: a granted variable (Names[0]) is not set.
	NoteEnvUnset
	// NoteEnvNotGranted: variables the skill declares (Names) were not granted.
	NoteEnvNotGranted
	// NoteRecordFailed: the run record could not be written (Err).
	NoteRecordFailed
	// NoteWorkdirKept: the fresh workdir (Names[0]) was kept because the
	// script left files in it.
	NoteWorkdirKept
)

// Note is something run tells the user while it works. The caller decides
// how to say it (the command line names its flags).
type Note struct {
	Kind      NoteKind
	Skill     string
	Names     []string
	Isolation Isolation
	Err       error
}

func (o *Options) note(n Note) {
	if o.Notes != nil {
		n.Skill = o.Skill.Name
		o.Notes(n)
	}
}
