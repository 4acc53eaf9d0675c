package coordinator

import (
	"errors"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// A session's network (docs/network.md): in bubblewrap mode with the
// network off, the session's commands and background jobs share one
// network namespace, made at the session's first command and ended after
// its last job, when the session ends. Its listening ports are announced
// as port.listening events and previewed through the server.

// portPoll is how often a session's ports are read while it has background
// jobs running; a call's end reads them at once.
const portPoll = 500 * time.Millisecond

// sessionNet is a session's network and what watches its ports.
type sessionNet struct {
	mu     sync.Mutex
	net    *sandbox.Network
	err    error // why the session has none (not retried)
	closed bool
	ports  map[int]api.Port // announced, by port
	poke   chan struct{}    // read the ports now
	done   chan struct{}    // closed to stop the watcher
	ended  chan struct{}    // closed once the watcher has stopped

	askMu   sync.Mutex
	asks    map[string]*netAsk   // network approvals open, by host:port
	granted map[string]time.Time // approved host:ports, until when
}

// ErrNoNetwork is the error of SessionNetwork for a session without a
// network of its own.
var ErrNoNetwork = errors.New("this session has no network of its own")

// network is the session's network, made on first use; nil where the
// sandbox gives sessions none (the command then gets an empty network of
// its own, or the host's, as configured).
func (c *Coordinator) network(s *Session) *sandbox.Network {
	sn := &s.net
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.net != nil || sn.err != nil || sn.closed {
		return sn.net
	}
	n, err := c.sandbox.NewNetwork(sandbox.NetworkOptions{Decide: func(host string, port int) error {
		return c.askNetwork(s, host, port)
	}})
	if err != nil {
		if !errors.Is(err, sandbox.ErrNoSessionNetwork) || c.sandbox.Mode() == sandbox.InForceBwrap {
			c.logger.Warn("session network unavailable", "session", s.ID, "err", err)
		}
		sn.err = err
		return nil
	}
	sn.net, sn.ports = n, map[int]api.Port{}
	sn.poke, sn.done, sn.ended = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go c.watchPorts(s)
	return n
}

// SessionNetwork is the session's network if it has one by now.
func (s *Session) SessionNetwork() (*sandbox.Network, error) {
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	if s.net.net == nil {
		if s.net.err != nil {
			return nil, errors.Join(ErrNoNetwork, s.net.err)
		}
		return nil, ErrNoNetwork
	}
	return s.net.net, nil
}

// closeNetwork ends the session's network: after its jobs, which hold it.
func (s *Session) closeNetwork() {
	sn := &s.net
	sn.mu.Lock()
	sn.closed = true
	n := sn.net
	sn.mu.Unlock()
	if n == nil {
		return
	}
	close(sn.done)
	<-sn.ended
	n.Close()
}

// pokePorts has the session's ports read now (a call ended).
func (s *Session) pokePorts() {
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	if s.net.net != nil && !s.net.closed {
		select {
		case s.net.poke <- struct{}{}:
		default:
		}
	}
}

// watchPorts announces the ports that start or stop listening: it reads
// them when poked, and every portPoll while jobs run.
func (c *Coordinator) watchPorts(s *Session) {
	sn := &s.net
	defer close(sn.ended)
	tick := time.NewTicker(portPoll)
	defer tick.Stop()
	for {
		select {
		case <-sn.done:
			return
		case <-sn.poke:
		case <-tick.C:
			if !s.jobs.AnyRunning() {
				continue
			}
		}
		c.announcePorts(s)
	}
}

// announcePorts compares the ports listening with those announced and
// appends an event for each change.
func (c *Coordinator) announcePorts(s *Session) {
	sn := &s.net
	ports, err := sn.net.Ports()
	if err != nil {
		return // the holder is ending
	}
	now := map[int]bool{}
	for _, p := range ports {
		now[p.Port] = true
		if _, ok := sn.ports[p.Port]; ok {
			continue
		}
		ap := PreviewPort(s.ID, p)
		sn.ports[p.Port] = ap
		s.Events.Append(api.Event{Type: api.EventPortListening, Port: &ap})
	}
	for n, ap := range sn.ports {
		if !now[n] {
			delete(sn.ports, n)
			s.Events.Append(api.Event{Type: api.EventPortClosed, Port: &ap})
		}
	}
}

// PreviewPort is a listening port as clients see it, with its preview URL.
func PreviewPort(sessionID string, p sandbox.Port) api.Port {
	return api.Port{Port: p.Port, Address: p.Address,
		URL: "/v1/sessions/" + url.PathEscape(sessionID) + "/ports/" + strconv.Itoa(p.Port) + "/"}
}
