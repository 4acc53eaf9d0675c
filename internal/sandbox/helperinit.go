package sandbox

import "github.com/toolgate/toolgate/internal/sandbox/helper"

// helperSpec is what the helper applies before it execs the command.
type helperSpec = helper.Spec

// init turns toolgate's binary (or a test binary of a package that runs
// commands) into the sandbox helper when started as one, where no helper
// binary of its own is installed beside it (findHelper). It has to run
// before anything else parses the arguments, the test framework
// included, which is why it is an init and not a call from main.
func init() {
	helper.Main()
}
