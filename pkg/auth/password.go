package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
	"golang.org/x/sync/semaphore"
)

// Staff passwords (console operators) are hashed with argon2id (RFC 9106's second
// recommended profile, 64 MiB, 1 pass) and stored in PHC form, so the parameters can be
// raised later without invalidating older hashes.
var passwordParams = &argon2id.Params{Memory: 64 * 1024, Iterations: 1, Parallelism: 2, SaltLength: 16, KeyLength: 32}

// MinPasswordLength and MaxPasswordLength bound a staff password, in characters.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 256
)

// ErrWeakPassword is a password outside the length bounds.
var ErrWeakPassword = errors.New("a password needs 12 to 256 characters")

// HashPassword hashes a staff password.
func HashPassword(password string) (string, error) {
	if n := utf8.RuneCountInString(password); n < MinPasswordLength || n > MaxPasswordLength {
		return "", ErrWeakPassword
	}
	return argon2id.CreateHash(password, passwordParams)
}

// dummyHash is compared against when an account does not exist, so a sign-in for an
// unknown e-mail takes as long as one for a known one.
// Made on first use, not at start-up of every binary that imports this package.
var dummyHash = sync.OnceValue(func() string {
	h, _ := argon2id.CreateHash("doceval-no-such-account", passwordParams)
	return h
})

// CheckPassword reports whether password matches hash; a nil hash (no password set)
// never matches but costs the same time.
func CheckPassword(hash *string, password string) bool {
	h := dummyHash()
	if hash != nil {
		h = *hash
	}
	if len(password) > 4*MaxPasswordLength {
		password = password[:4*MaxPasswordLength]
	}
	ok, err := argon2id.ComparePasswordAndHash(password, h)
	return ok && err == nil && hash != nil
}

// ErrBusy: every password-checking slot stayed taken for the whole wait.
var ErrBusy = errors.New("too many password checks at once: try again")

// PasswordChecker runs CheckPassword at most n at a time, so that a burst of sign-ins
// costs at most n × 64 MiB instead of memory without bound; a check that finds no slot
// free within wait fails with ErrBusy.
type PasswordChecker struct {
	slots *semaphore.Weighted
	wait  time.Duration
}

// NewPasswordChecker returns a checker with n slots (at least one).
func NewPasswordChecker(n int, wait time.Duration) *PasswordChecker {
	return &PasswordChecker{slots: semaphore.NewWeighted(int64(max(n, 1))), wait: wait}
}

// Check is CheckPassword in a slot; ErrBusy when none came free in time (or ctx ended).
func (c *PasswordChecker) Check(ctx context.Context, hash *string, password string) (bool, error) {
	release, err := c.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return CheckPassword(hash, password), nil
}

func (c *PasswordChecker) acquire(ctx context.Context) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	if err := c.slots.Acquire(ctx, 1); err != nil {
		return nil, ErrBusy
	}
	return func() { c.slots.Release(1) }, nil
}

// NewPasswordHash returns a new random password of n characters (NewPassword) and its
// hash, for an account whose password is handed out once.
func NewPasswordHash(n int) (password, hash string, err error) {
	password = NewPassword(n)
	hash, err = HashPassword(password)
	return password, hash, err
}

// NewPassword returns a random password of n letters and digits (without look-alikes
// such as l, 1, O, 0), for accounts whose first password is handed out once.
func NewPassword(n int) string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
