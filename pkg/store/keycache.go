package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// keysChannel carries the announcements of migration 00020: a key revoked or removed, a
// client's permissions or disabled state changed, sent by the transaction that changed
// it when it commits.
const keysChannel = "doceval_api_keys"

// KeyCache answers Authenticate from memory, so a request costs no query for its key.
// It serves cached answers only while Watch listens for the announcements of changes
// (keysChannel) on its own connection: each one drops every cached answer, so a key
// revoked on any replica is refused by this one once the announcement arrives. When
// that connection is lost the cache is emptied and every request looks its key up until
// Watch listens again. An answer is also kept no longer than the TTL (a backstop for a
// connection that died without a word), nor past the moment the key's last_used_at is
// due to be written again (keyUseResolution): the lookup records it, as before. Unknown
// and revoked keys are never cached.
type KeyCache struct {
	s   *Store
	ttl time.Duration
	log *slog.Logger
	// relisten is the pause before Watch listens again after losing its connection.
	relisten time.Duration
	// probeEvery and probeWithin: see listen.
	probeEvery, probeWithin time.Duration
	// channel is where the listener listens (keysChannel; another only in tests, as a
	// connection that does not hear the announcements).
	channel string

	mu sync.Mutex
	// listening: Watch listens, cached answers may be served.
	listening bool
	// gen counts the times the cache was emptied: a lookup begun before one may have
	// read what the change replaced, and is not kept.
	gen     uint64
	entries map[string]keyEntry
}

type keyEntry struct {
	cred  Credential
	until time.Time // monotonic
}

// NewKeyCache returns a cache of s.Authenticate whose answers live at most ttl; it
// serves nothing before Watch runs (ttl ≤ 0: never).
func NewKeyCache(s *Store, ttl time.Duration, log *slog.Logger) *KeyCache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &KeyCache{
		s: s, ttl: ttl, log: log, relisten: time.Second, probeEvery: 5 * time.Second, probeWithin: 2 * time.Second,
		channel: keysChannel, entries: map[string]keyEntry{},
	}
}

// Authenticate is Store.Authenticate, from the cache when it holds the key.
func (c *KeyCache) Authenticate(ctx context.Context, keyHash []byte) (Credential, error) {
	c.mu.Lock()
	e, ok := c.entries[string(keyHash)]
	if ok && c.listening && time.Now().Before(e.until) {
		c.mu.Unlock()
		return e.cred, nil
	}
	gen, listening := c.gen, c.listening
	c.mu.Unlock()
	cred, lastUsed, err := c.s.authenticate(ctx, keyHash)
	if err != nil || !listening || c.ttl <= 0 {
		return cred, err
	}
	life := min(c.ttl, lastUsed.Add(keyUseResolution).Sub(c.s.Now()))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listening && c.gen == gen && life > 0 {
		c.entries[string(keyHash)] = keyEntry{cred: cred, until: time.Now().Add(life)}
	}
	return cred, nil
}

// Watch listens for changes on a connection of its own until ctx ends, listening again
// after a pause when the connection is lost (the cache serves nothing meanwhile).
func (c *KeyCache) Watch(ctx context.Context) error {
	if c.ttl <= 0 {
		return nil
	}
	for failures := 1; ; failures++ {
		served, err := c.listen(ctx)
		c.empty(false)
		if ctx.Err() != nil {
			return nil
		}
		if served {
			failures = 1 // it served until now: this is a new loss
		}
		// A listener that never hears itself (a pooler in transaction mode) fails every
		// time: said once, then now and then.
		if failures == 1 || failures%100 == 0 {
			c.log.Warn("api key cache: not listening, keys are looked up until it is", "error", err, "retry_in", c.relisten, "attempts", failures)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(c.relisten):
		}
	}
}

// listen listens until its connection fails. The cache serves answers only while the
// listener proves that it hears the channel: every probeEvery a notice of its own
// (payload "probe:" and a nonce), sent on a second connection, must come back within
// probeWithin. A listening connection that died without a word, or one behind a pooler
// in transaction mode, where LISTEN does not outlive its statement, is so found out
// within seconds instead of serving what it never heard of until the TTL.
// It says whether the cache served answers before the listener ended.
func (c *KeyCache) listen(ctx context.Context) (served bool, err error) {
	cfg := c.s.pool.Config().ConnConfig
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	prober, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer prober.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+c.channel); err != nil { // a constant
		return false, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	nonce := probePrefix + uuid.NewString()
	heard := make(chan struct{}, 1)
	probing := make(chan struct{})
	defer func() { stop(nil); <-probing }() // before the prober's connection closes
	go func() {
		defer close(probing)
		for {
			if _, err := prober.Exec(ctx, "SELECT pg_notify($1, $2)", keysChannel, nonce); err != nil {
				stop(err)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-heard:
			case <-time.After(c.probeWithin):
				stop(fmt.Errorf("the listener did not hear its own notice within %s", c.probeWithin))
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.probeEvery):
			}
		}
	}()
	serving := false
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				err = cause
			}
			return serving, err
		}
		switch {
		case n.Payload == nonce:
			if !serving {
				// What changed before the listener was proven was missed: nothing
				// older than now is kept.
				serving = true
				c.empty(true)
			}
			select {
			case heard <- struct{}{}:
			default:
			}
		case strings.HasPrefix(n.Payload, probePrefix): // another replica's probe
		default:
			c.empty(serving)
		}
	}
}

// probePrefix starts the payload of a listener's probe; a change is announced with an
// empty one.
const probePrefix = "probe:"

// empty drops every cached answer, and says whether answers may be cached from now on.
func (c *KeyCache) empty(listening bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.listening = listening
	clear(c.entries)
}

// Listening reports whether the cache serves answers (Watch listens).
func (c *KeyCache) Listening() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listening
}
