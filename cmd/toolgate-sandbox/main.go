// Command toolgate-sandbox is the sandbox's helper on its own: installed
// beside toolgate's binary, toolgate starts it in place of each sandboxed
// command instead of re-executing itself, which takes several times longer
// to start (see internal/sandbox/helper). It is not meant to be run by
// hand.
package main

import (
	"fmt"
	"os"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

func main() {
	helper.Main()
	fmt.Fprintln(os.Stderr, "toolgate-sandbox is started by toolgate for each sandboxed command; it takes no arguments of its own")
	os.Exit(2)
}
