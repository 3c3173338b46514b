// Package secretbox encrypts secrets at rest (webhook signing secrets) with AES-256-GCM
// from the standard library. The key comes from configuration (DOCEVAL_SECRET_KEY,
// 32 bytes in base64); each value is bound to its owner's id as additional data, so a
// ciphertext copied onto another row does not open.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// Box seals and opens values with one key.
type Box struct{ aead cipher.AEAD }

// ParseKey reads a base64 (standard or URL alphabet) 32-byte key.
func ParseKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("DOCEVAL_SECRET_KEY must be 32 bytes in base64 (e.g. openssl rand -base64 32)")
}

// NewKey returns a fresh random key in base64.
func NewKey() string {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// New returns a box for a 32-byte key.
func New(key []byte) (*Box, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext bound to owner: nonce followed by ciphertext and tag.
func (b *Box) Seal(plaintext, owner []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, plaintext, owner)
}

// Open decrypts a sealed value of owner.
func (b *Box) Open(sealed, owner []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	return b.aead.Open(nil, sealed[:n], sealed[n:], owner)
}
