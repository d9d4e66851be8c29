package install_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

func TestInstallFromURL(t *testing.T) {
	data := at.Zip(goodSkill("web", "from the web\n"))
	sum := sha256.Sum256(data)
	good := hex.EncodeToString(sum[:])
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux := http.NewServeMux()
	mux.HandleFunc("/web.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(data) })
	mux.HandleFunc("/big.zip", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Length: the cap must hold while reading.
		w.(http.Flusher).Flush()
		chunk := make([]byte, 64<<10)
		for range 64 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/slow.zip", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/missing.zip", http.NotFound)
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name    string
		path    string
		sha     string
		opts    func(*install.Options)
		wantErr error
		errText string
	}{
		{name: "success", path: "/web.zip"},
		{name: "success with --sha256", path: "/web.zip", sha: good},
		{name: "wrong --sha256", path: "/web.zip", sha: "1111111111111111111111111111111111111111111111111111111111111111", wantErr: install.ErrChecksum},
		{name: "oversized body", path: "/big.zip", opts: func(o *install.Options) { o.MaxDownloadBytes = 1 << 20 }, wantErr: archive.ErrLimit, errText: "download limit"},
		{name: "slow server", path: "/slow.zip", opts: func(o *install.Options) { o.DownloadTimeout = 200 * time.Millisecond }, errText: "timed out"},
		{name: "not found", path: "/missing.zip", errText: "404"},
		{name: "redirect loop", path: "/loop", errText: "redirects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "skills")
			opts := install.Options{Sources: []string{srv.URL + tc.path}, Roots: []string{root}, SHA256: tc.sha}
			if tc.opts != nil {
				tc.opts(&opts)
			}
			res, err := install.New(opts).Run(context.Background())
			if tc.wantErr == nil && tc.errText == "" {
				require.NoError(t, err)
				require.Len(t, res.Skills, 1)
				e := res.Skills[0]
				assert.Equal(t, install.KindURL, e.Source.Kind)
				assert.Equal(t, srv.URL+tc.path, e.Source.Location)
				assert.Equal(t, good, e.Source.SHA256)
				requireLockMatchesDisk(t, root)
				return
			}
			require.Error(t, err)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
			}
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
			}
			_, statErr := os.Stat(filepath.Join(root, "web"))
			assert.True(t, os.IsNotExist(statErr), "nothing installed")
		})
	}
}

func TestURLCredentialsAreNotRecorded(t *testing.T) {
	data := at.Zip(goodSkill("web", "x\n"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	t.Cleanup(srv.Close)
	u := "http://user:secret@" + srv.Listener.Addr().String() + "/web.zip"
	root := filepath.Join(t.TempDir(), "skills")
	res, err := install.New(install.Options{Sources: []string{u}, Roots: []string{root}}).Run(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, res.Skills[0].Source.Location, "secret")
	raw, err := os.ReadFile(filepath.Join(root, install.LockFileName))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "secret")
}
