package store

import (
	"context"
	"log/slog"
	"sync"
	"time"

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
	return &KeyCache{s: s, ttl: ttl, log: log, relisten: time.Second, entries: map[string]keyEntry{}}
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
	for {
		err := c.listen(ctx)
		c.empty(false)
		if ctx.Err() != nil {
			return nil
		}
		c.log.Warn("api key cache: lost its listener, keys are looked up until it is back", "error", err, "retry_in", c.relisten)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(c.relisten):
		}
	}
}

func (c *KeyCache) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, c.s.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+keysChannel); err != nil {
		return err
	}
	// What changed while nobody listened was missed: nothing older than now is kept.
	c.empty(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		c.empty(true)
	}
}

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
