package shellcmd

import "testing"

// TestEndDir: the directory a line leaves its shell in, which Claude
// Code's Bash keeps for the next command.
func TestEndDir(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"pwd", ""},
		{"cd src && pwd", "src"},
		{"cd src; cd lib", "src/lib"},
		{"cd /abs/dir && ls", "/abs/dir"},
		{"(cd src && ls)", ""},
		{"cd src & wait", ""},
		{"cd src/.. && ls", ""},
		{"cd ../up", "../up"},
		{"cd $HOME", "/?"},
		{"cd -", "/?"},
		{"f() { cd x; }; f", "/?"},
	}
	for _, tt := range tests {
		if got := Analyze(tt.cmd).EndDir; got != tt.want {
			t.Errorf("Analyze(%q).EndDir = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
