// Package keyset is the position a list resumes from: lists are ordered newest first by
// (created_at, id), and a page ends at its last row's position. The database layer
// reads pages after a position; the HTTP edge (pkg/page) hands positions to callers as
// opaque cursors and takes them back.
package keyset

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Position is the keyset position after which the next page starts.
type Position struct {
	CreatedAt time.Time `json:"t"`
	ID        uuid.UUID `json:"i"`
}

// Encode renders a position as an opaque string (base64url of a small JSON object).
func (p Position) Encode() string {
	b, _ := json.Marshal(p) // a struct of a time and a uuid always marshals
	return base64.RawURLEncoding.EncodeToString(b)
}

// Parse reads what Encode wrote; ok is false for anything else.
func Parse(s string) (Position, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Position{}, false
	}
	var p Position
	if err := json.Unmarshal(b, &p); err != nil || p.CreatedAt.IsZero() || p.ID == uuid.Nil {
		return Position{}, false
	}
	return p, true
}
