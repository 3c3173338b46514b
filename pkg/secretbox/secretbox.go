// Package secretbox encrypts secrets at rest with AES-256-GCM from the standard library.
// The keys come from configuration (DOCEVAL_SECRET_KEY for webhook signing secrets and
// replayed responses, DOCEVAL_CONSOLE_SECRET_KEY for staff TOTP secrets: 32 bytes in
// base64, or a key ring of several separated by commas, newest first); each
// value is bound to its owner's id as additional data, so a ciphertext copied onto
// another row does not open.
//
// Rotating a key: put a new key first in its variable and keep the old ones
// after it (the box seals with the first and opens with any), roll the services, run
// `doceval-admin secrets reencrypt` to move every stored secret to the first key, then
// drop the old keys.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Box seals values with its newest key and opens them with any of its keys.
type Box struct{ aeads []cipher.AEAD }

// ParseKey reads a base64 (standard or URL alphabet) 32-byte key.
func ParseKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("a key must be 32 bytes in base64 (e.g. openssl rand -base64 32)")
}

// ParseKeys reads a key ring: base64 keys separated by commas, newest first. Its
// errors do not name the variable the ring came from; the caller adds it.
func ParseKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for part := range strings.SplitSeq(s, ",") {
		k, err := ParseKey(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", len(keys)+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// NewKey returns a fresh random key in base64.
func NewKey() string {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// New returns a box sealing with key and opening with key or any of older.
func New(key []byte, older ...[]byte) (*Box, error) {
	b := &Box{}
	for _, k := range append([][]byte{key}, older...) {
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("secret key: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		b.aeads = append(b.aeads, aead)
	}
	return b, nil
}

// NewRing returns a box over a key ring from ParseKeys (newest first).
func NewRing(keys [][]byte) (*Box, error) {
	if len(keys) == 0 {
		return nil, errors.New("no secret key")
	}
	return New(keys[0], keys[1:]...)
}

// Seal encrypts plaintext bound to owner with the newest key: nonce followed by
// ciphertext and tag.
func (b *Box) Seal(plaintext, owner []byte) []byte {
	aead := b.aeads[0]
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, plaintext, owner)
}

// Open decrypts a sealed value of owner with whichever key sealed it.
func (b *Box) Open(sealed, owner []byte) ([]byte, error) {
	plain, _, err := b.open(sealed, owner)
	return plain, err
}

// Reseal returns the value sealed anew with the newest key, and whether that was
// needed (false: the newest key sealed it already, and sealed is returned as is).
func (b *Box) Reseal(sealed, owner []byte) ([]byte, bool, error) {
	plain, i, err := b.open(sealed, owner)
	if err != nil || i == 0 {
		return sealed, false, err
	}
	return b.Seal(plain, owner), true, nil
}

// open tries the keys newest first and says which one opened the value.
func (b *Box) open(sealed, owner []byte) ([]byte, int, error) {
	for i, aead := range b.aeads {
		n := aead.NonceSize()
		if len(sealed) < n {
			return nil, 0, errors.New("sealed value too short")
		}
		if plain, err := aead.Open(nil, sealed[:n], sealed[n:], owner); err == nil {
			return plain, i, nil
		}
	}
	return nil, 0, errors.New("no key of the ring opens the value (a wrong key ring?)")
}
