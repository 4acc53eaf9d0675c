package policy

import (
	"testing"

	"github.com/toolgate/toolgate/api"
)

func TestValidatePermissions(t *testing.T) {
	bad := []string{"", "read_file(", "read_file()", "re ad", "mcp__x(y)", "a/b"}
	for _, r := range bad {
		t.Run(r, func(t *testing.T) {
			if err := ValidatePermissions(api.Permissions{Deny: []string{r}}); err == nil {
				t.Errorf("rule %q: got nil error, want one", r)
			}
		})
	}
	good := []string{"read_file", "execute_command(npm run test:*)", "mcp__github", "mcp__*", "write_to_file(src/**)", "execute_command(echo (x))"}
	for _, r := range good {
		t.Run(r, func(t *testing.T) {
			if err := ValidatePermissions(api.Permissions{Allow: []string{r}}); err != nil {
				t.Errorf("rule %q: %v", r, err)
			}
		})
	}
}
