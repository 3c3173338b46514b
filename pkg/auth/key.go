package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"slices"
	"strings"
)

// KeyPrefix starts every API key, so leaked keys are recognizable by secret scanners.
const KeyPrefix = "dek_"

// keyRandomBytes is the entropy of a key: 256 bits.
const keyRandomBytes = 32

const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewKey returns a fresh API key: "dek_" followed by 32 random bytes in base62.
func NewKey() string {
	b := make([]byte, keyRandomBytes)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return KeyPrefix + base62(b)
}

func base62(b []byte) string {
	n := new(big.Int).SetBytes(b)
	// 32 bytes need at most 43 base62 digits; pad so every key has the same length.
	const width = 43
	digits := make([]byte, 0, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		digits = append(digits, base62Alphabet[mod.Int64()])
	}
	for len(digits) < width {
		digits = append(digits, '0')
	}
	slices.Reverse(digits)
	return string(digits)
}

// HashKey is what is stored and looked up: keys never reach the database in clear.
func HashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// DisplayPrefix is the part of a key safe to show to operators to tell keys apart.
func DisplayPrefix(key string) string {
	if len(key) <= len(KeyPrefix)+6 {
		return key
	}
	return key[:len(KeyPrefix)+6]
}

// WellFormed reports whether s has the shape of a key; malformed keys are refused before
// any database lookup.
func WellFormed(s string) bool {
	rest, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok || len(rest) < 43 || len(rest) > 128 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !strings.ContainsRune(base62Alphabet, rune(rest[i])) {
			return false
		}
	}
	return true
}

// BearerToken extracts the token of an "Authorization: Bearer <token>" header value.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
