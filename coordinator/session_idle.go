package coordinator

import (
	"time"

	"github.com/toolgate/toolgate/api"
)

// Idle sessions expire. A client that creates sessions and never deletes
// them would otherwise fill the bounded session set, and from then on every
// new client is refused. A session is idle when nothing uses it: no
// request has named it for the idle time, no call of it is unfinished, and
// no event stream of it is open (an IDE that keeps its stream open while
// the user is away keeps its session).

// touch records a use of the session.
func (s *Session) touch(now time.Time) { s.lastUsed.Store(now.UnixNano()) }

// Hold keeps the session from expiring until release is called, however
// long it is quiet: an open event stream holds its session.
func (s *Session) Hold() (release func()) {
	s.holds.Add(1)
	return func() {
		s.holds.Add(-1)
		s.touch(time.Now())
	}
}

// idleSince reports when the session was last used, and false while
// something still uses it.
func (s *Session) idleSince() (time.Time, bool) {
	if s.holds.Load() > 0 {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.calls {
		if e.cancel != nil { // not done
			return time.Time{}, false
		}
	}
	return time.Unix(0, s.lastUsed.Load()), true
}

// ExpireIdle deletes the sessions, "default" aside, idle since before
// now minus the configured idle time, and returns their ids.
func (s *Sessions) ExpireIdle(now time.Time) []string {
	idle := s.cfg.sessionIdle()
	if idle <= 0 {
		return nil
	}
	s.mu.Lock()
	var expired []*Session
	for id, sess := range s.byID {
		if id == api.DefaultSessionID {
			continue
		}
		if since, ok := sess.idleSince(); ok && now.Sub(since) >= idle {
			expired = append(expired, sess)
			delete(s.byID, id)
		}
	}
	s.mu.Unlock()
	ids := make([]string, len(expired))
	for i, sess := range expired {
		sess.close()
		s.rec.sessionGone(sess)
		ids[i] = sess.ID
	}
	return ids
}

// evictFloor is how long a session must be quiet before a full session
// set takes its place for a new client. Without it, a client that creates
// sessions in a loop and never deletes them locks every other client out
// until the idle time (an hour by default) passes; with it, the lockout
// lasts at most this long, while a session in use between two model turns
// (seconds) is not taken from its client.
const evictFloor = time.Minute

// evictLeastRecentlyUsed ends the least recently used session that nothing
// holds, has no running background job and has been quiet for evictFloor,
// and reports whether it found one.
func (s *Sessions) evictLeastRecentlyUsed(now time.Time) bool {
	s.mu.Lock()
	var victim *Session
	var victimSince time.Time
	for id, sess := range s.byID {
		if id == api.DefaultSessionID {
			continue
		}
		since, ok := sess.idleSince()
		if !ok || now.Sub(since) < evictFloor || sess.hasRunningJob() {
			continue
		}
		if victim == nil || since.Before(victimSince) {
			victim, victimSince = sess, since
		}
	}
	if victim != nil {
		delete(s.byID, victim.ID)
	}
	s.mu.Unlock()
	if victim == nil {
		return false
	}
	victim.close()
	s.rec.sessionGone(victim)
	return true
}

// hasRunningJob reports whether a background job of the session still runs:
// ending the session would kill it.
func (s *Session) hasRunningJob() bool {
	for _, j := range s.jobs.List() {
		if j.State() == api.JobRunning {
			return true
		}
	}
	return false
}

// expireIdleSessions runs ExpireIdle until stop closes, often enough that a
// session outlives its idle time by at most a quarter of it (and a minute).
func (c *Coordinator) expireIdleSessions(stop <-chan struct{}) {
	idle := c.cfg.sessionIdle()
	if idle <= 0 {
		return
	}
	t := time.NewTicker(min(max(idle/4, time.Second), time.Minute))
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			for _, id := range c.sessions.ExpireIdle(now) {
				c.logger.Info("session expired", "session", id, "idle", idle)
			}
		case <-stop:
			return
		}
	}
}

// sessionIdle is the idle time after which sessions expire; 0 means never
// (a negative SessionIdleSeconds; New has filled in an unset one).
func (c *Config) sessionIdle() time.Duration {
	if c.SessionIdleSeconds < 0 {
		return 0
	}
	return time.Duration(c.SessionIdleSeconds) * time.Second
}
