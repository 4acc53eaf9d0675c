package launch

import (
	"bufio"
	"io"
	"strings"
)

// ListeningPrefix begins the line toolgate serve prints on stdout once its
// listener accepts connections; the rest of the line is its base URL
// (http://127.0.0.1:PORT). A server is ready when it has printed it: the
// port is bound before the line is written, so no /healthz poll is needed.
const ListeningPrefix = "toolgate listening on "

// WatchStdout reads a server's stdout until it ends. The URL of the first
// listening line is sent on the returned channel, which is closed when r
// ends; each line printed after it is sent on after when after is not nil
// (closed when r ends), and dropped otherwise, so the server never blocks
// on a full pipe.
func WatchStdout(r io.Reader, after chan<- string) <-chan string {
	url := make(chan string, 1)
	go func() {
		defer close(url)
		if after != nil {
			defer close(after)
		}
		sc := bufio.NewScanner(r)
		listening := false
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), ListeningPrefix); ok && !listening {
				listening = true
				url <- strings.TrimSpace(u)
			} else if listening && after != nil {
				after <- sc.Text()
			}
		}
		// Drain what is left (a line longer than the scanner's buffer
		// stops it) so that the server never blocks writing its stdout.
		_, _ = io.Copy(io.Discard, r)
	}()
	return url
}
