package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// kind is one of the two calls.
type kind int

const (
	readKind kind = iota
	commandKind
)

func (k kind) String() string { return [...]string{"1 KB read", "`true` start"}[k] }

// tally is what one server did for one kind of call.
type tally struct {
	lat         []time.Duration
	phases      []phases      // where each call's time went, as the client saw it
	own, family time.Duration // CPU: the server's, and with its reaped children
}

// result is a server's tallies.
type result struct {
	name  string
	peer  bool
	kinds [2]tally
}

// measure warms every server up, then serves them in turn, round after
// round, the first server of a round moving by one each time.
func measure(ctx context.Context, o options, servers []*server) ([]*result, error) {
	res := make([]*result, len(servers))
	for i, s := range servers {
		res[i] = &result{name: s.name, peer: s.peer}
	}
	var seq int64
	id := func() string { seq++; return "peers_" + strconv.FormatInt(seq, 10) }
	for _, s := range servers { // warm-up, not counted
		for range 20 {
			if err := s.read.do(id()); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
		}
		for range 5 {
			if err := s.command.do(id()); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	for r := range o.rounds {
		for j := range servers {
			i := (r + j) % len(servers)
			s := servers[i]
			for _, k := range []kind{readKind, commandKind} {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				n, call := o.reads, s.read
				if k == commandKind {
					n, call = o.commands, s.command
				}
				t := &res[i].kinds[k]
				own0, fam0, err := s.cpu()
				if err != nil {
					return nil, err
				}
				for range n {
					start := time.Now()
					check, err := call(id())
					end := time.Now()
					t.lat = append(t.lat, end.Sub(start))
					t.phases = append(t.phases, s.clock.since(end))
					if err == nil {
						err = check()
					}
					if err != nil {
						return nil, fmt.Errorf("%s: %w", s.name, err)
					}
				}
				own1, fam1, err := s.cpu()
				if err != nil {
					return nil, err
				}
				t.own += own1 - own0
				t.family += fam1 - fam0
			}
		}
	}
	return res, nil
}

func (t *tally) quantile(q float64) time.Duration { return quantile(q, slices.Clone(t.lat)) }

// phaseQuantile is the q-quantile of one phase over the calls.
func (t *tally) phaseQuantile(q float64, of func(phases) time.Duration) time.Duration {
	s := make([]time.Duration, 0, len(t.phases))
	for _, p := range t.phases {
		s = append(s, of(p))
	}
	return quantile(q, s)
}

// quantile is the q-quantile of s, which it sorts.
func quantile(q float64, s []time.Duration) time.Duration {
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[int(q*float64(len(s)-1))]
}

func (t *tally) cpuPerCall(family bool) time.Duration {
	if len(t.lat) == 0 {
		return 0
	}
	if family {
		return t.family / time.Duration(len(t.lat))
	}
	return t.own / time.Duration(len(t.lat))
}

// report prints, per kind of call, each server's figures and its ratios
// to the best peer (the lowest median).
func report(w io.Writer, o options, res []*result) {
	fmt.Fprintf(w, "%d rounds, %d reads and %d commands per server and round, one sequential caller\n", o.rounds, o.reads, o.commands)
	for _, k := range []kind{readKind, commandKind} {
		var best *result
		for _, r := range res {
			if r.peer && (best == nil || r.kinds[k].quantile(0.5) < best.kinds[k].quantile(0.5)) {
				best = r
			}
		}
		fmt.Fprintf(w, "\n%s\n", k)
		fmt.Fprintf(w, "  %-26s %9s %9s %9s %11s %12s %9s %9s\n", "server", "p50 µs", "p90 µs", "p99 µs", "cpu µs/call", "+children µs", "p50 ratio", "cpu ratio")
		for _, r := range res {
			t := &r.kinds[k]
			b := &best.kinds[k]
			fmt.Fprintf(w, "  %-26s %9.0f %9.0f %9.0f %11.0f %12.0f %9.2f %9.2f\n", r.name,
				us(t.quantile(0.5)), us(t.quantile(0.9)), us(t.quantile(0.99)), us(t.cpuPerCall(false)), us(t.cpuPerCall(true)),
				float64(t.quantile(0.5))/float64(b.quantile(0.5)),
				float64(t.cpuPerCall(true))/float64(b.cpuPerCall(true)))
		}
	}
	fmt.Fprintf(w, "\nratios are to %s; cpu ratio counts the server with the children it reaped\n", "the best peer")
	fmt.Fprintf(w, "\n%s, where the time goes as the client sees it (p50 µs of each phase)\n", readKind)
	fmt.Fprintf(w, "  %-26s %9s %11s %9s\n", "server", "request", "first byte", "rest")
	for _, r := range res {
		t := &r.kinds[readKind]
		fmt.Fprintf(w, "  %-26s %9.0f %11.0f %9.0f\n", r.name,
			us(t.phaseQuantile(0.5, func(p phases) time.Duration { return p.write })),
			us(t.phaseQuantile(0.5, func(p phases) time.Duration { return p.firstByte })),
			us(t.phaseQuantile(0.5, func(p phases) time.Duration { return p.rest })))
	}
	fmt.Fprintln(w, "request: building and writing it; first byte: from then to the answer's first byte; rest: reading the rest of the answer")
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
