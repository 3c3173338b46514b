package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/auth"
)

// Client is an API client (a partner) as the operator sees it.
type Client struct {
	ID          uuid.UUID         `json:"api_client_id"`
	Name        string            `json:"name"`
	Permissions []auth.Permission `json:"permissions"`
	Disabled    bool              `json:"disabled"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
}

func clientFromRow(r db.APIClient) Client {
	return Client{
		ID:          r.ID,
		Name:        r.Name,
		Permissions: auth.FromStrings(r.Permissions),
		Disabled:    r.DisabledAt != nil,
		CreatedAt:   r.CreatedAt,
		UpdatedAt:   r.UpdatedAt,
	}
}

// Key describes an API key without its secret.
type Key struct {
	ID          uuid.UUID `json:"api_key_id"`
	APIClientID uuid.UUID `json:"api_client_id"`
	Prefix      string    `json:"prefix"`
	CreatedAt   time.Time `json:"created_at"`
	// LastUsedAt is when the key last authenticated a request (to the minute); null
	// when never.
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

func keyFromRow(r db.APIKey) Key {
	return Key{ID: r.ID, APIClientID: r.APIClientID, Prefix: r.KeyPrefix, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt}
}

// keyUseResolution is how stale a key's last_used_at may get before a request writes it.
const keyUseResolution = time.Minute

// CreateClient creates an API client and its first key. The key is returned once and
// stored only as a hash.
func (s *Store) CreateClient(ctx context.Context, name string, perms []auth.Permission) (Client, Key, string, error) {
	var (
		client Client
		key    Key
		secret string
	)
	err := s.InTx(ctx, func(tx *Tx) error {
		row, err := tx.q.ClientInsert(ctx, db.ClientInsertParams{
			ID: s.NewID(), Name: name, Permissions: auth.Strings(perms), Now: s.Now(),
		})
		if err != nil {
			return interpretError(err)
		}
		client = clientFromRow(row)
		if key, secret, err = tx.createKey(ctx, client.ID); err != nil {
			return err
		}
		return tx.audit(ctx, "client.create", "api_client", client.ID.String(), map[string]any{
			"name": name, "permissions": auth.Strings(perms), "api_key_id": key.ID, "key_prefix": key.Prefix,
		})
	})
	return client, key, secret, err
}

// CreateKey issues another key for a client, for rotation without downtime.
func (s *Store) CreateKey(ctx context.Context, clientID uuid.UUID) (Key, string, error) {
	var (
		key    Key
		secret string
	)
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.ClientGetByID(ctx, clientID); err != nil {
			return interpretError(err)
		}
		var err error
		if key, secret, err = tx.createKey(ctx, clientID); err != nil {
			return err
		}
		return tx.audit(ctx, "key.issue", "api_key", key.ID.String(), map[string]any{"api_client_id": clientID, "key_prefix": key.Prefix})
	})
	return key, secret, err
}

func (tx *Tx) createKey(ctx context.Context, clientID uuid.UUID) (Key, string, error) {
	secret := auth.NewKey()
	row, err := tx.q.KeyInsert(ctx, db.KeyInsertParams{
		ID: tx.s.NewID(), APIClientID: clientID, KeyHash: auth.HashKey(secret),
		KeyPrefix: auth.DisplayPrefix(secret), Now: tx.s.Now(),
	})
	if err != nil {
		return Key{}, "", interpretError(err)
	}
	return keyFromRow(row), secret, nil
}

// ListKeys lists a client's keys, oldest first, revoked ones included. ErrNotFound: no
// such client.
func (s *Store) ListKeys(ctx context.Context, clientID uuid.UUID) ([]Key, error) {
	if _, err := s.queries(ctx).ClientGetByID(ctx, clientID); err != nil {
		return nil, interpretError(err)
	}
	rows, err := s.queries(ctx).KeysOfClient(ctx, clientID)
	if err != nil {
		return nil, interpretError(err)
	}
	keys := make([]Key, len(rows))
	for i, r := range rows {
		keys[i] = keyFromRow(r)
	}
	return keys, nil
}

// RevokeKey revokes a key at once; revoking twice keeps the first revocation time.
func (s *Store) RevokeKey(ctx context.Context, keyID uuid.UUID) (Key, error) {
	var key Key
	err := s.InTx(ctx, func(tx *Tx) error {
		row, err := tx.q.KeyRevoke(ctx, db.KeyRevokeParams{ID: keyID, Now: s.Now()})
		if err != nil {
			return interpretError(err)
		}
		key = keyFromRow(row)
		return tx.audit(ctx, "key.revoke", "api_key", keyID.String(), map[string]any{"api_client_id": key.APIClientID, "key_prefix": key.Prefix})
	})
	return key, err
}

// ListClients lists every API client.
func (s *Store) ListClients(ctx context.Context) ([]Client, error) {
	rows, err := s.queries(ctx).ClientList(ctx)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]Client, len(rows))
	for i, r := range rows {
		out[i] = clientFromRow(r)
	}
	return out, nil
}

// SetClientDisabled disables (403 api_client_disabled on every request; its deliveries
// and jobs held, see ErrClientDisabled) or enables a client (its held jobs enqueued
// again, its held deliveries sent).
func (s *Store) SetClientDisabled(ctx context.Context, id uuid.UUID, disabled bool) (Client, error) {
	now := s.Now()
	var at *time.Time
	if disabled {
		at = &now
	}
	var client Client
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.q.ClientHoldLock(ctx, id); err != nil { // see ErrClientDisabled
			return interpretError(err)
		}
		row, err := tx.q.ClientSetDisabled(ctx, db.ClientSetDisabledParams{ID: id, DisabledAt: at, Now: now})
		if err != nil {
			return interpretError(err)
		}
		client = clientFromRow(row)
		if disabled {
			return tx.audit(ctx, "client.disable", "api_client", id.String(), map[string]any{"name": client.Name})
		}
		resumed, err := tx.resumeHeldJobs(ctx, id)
		if err != nil {
			return err
		}
		return tx.audit(ctx, "client.enable", "api_client", id.String(), map[string]any{"name": client.Name, "resumed": resumed})
	})
	return client, err
}

// SetClientPermissions replaces a client's permissions.
func (s *Store) SetClientPermissions(ctx context.Context, id uuid.UUID, perms []auth.Permission) (Client, error) {
	var client Client
	err := s.InTx(ctx, func(tx *Tx) error {
		before, err := tx.q.ClientGetByID(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		row, err := tx.q.ClientSetPermissions(ctx, db.ClientSetPermissionsParams{ID: id, Permissions: auth.Strings(perms), Now: s.Now()})
		if err != nil {
			return interpretError(err)
		}
		client = clientFromRow(row)
		return tx.audit(ctx, "client.permissions", "api_client", id.String(), map[string]any{
			"name": client.Name, "before": before.Permissions, "after": auth.Strings(perms),
		})
	})
	return client, err
}

// Client reads one API client.
func (s *Store) Client(ctx context.Context, id uuid.UUID) (Client, error) {
	row, err := s.queries(ctx).ClientGetByID(ctx, id)
	if err != nil {
		return Client{}, interpretError(err)
	}
	return clientFromRow(row), nil
}

// Credential is what a key hash resolves to.
type Credential struct {
	Principal auth.Principal
	Disabled  bool
}

// Authenticate resolves a key hash. Unknown and revoked keys are ErrNotFound.
func (s *Store) Authenticate(ctx context.Context, keyHash []byte) (Credential, error) {
	cred, _, err := s.authenticate(ctx, keyHash)
	return cred, err
}

// authenticate is Authenticate that also returns the key's last_used_at after this use.
func (s *Store) authenticate(ctx context.Context, keyHash []byte) (Credential, time.Time, error) {
	now := s.Now()
	stale := now.Add(-keyUseResolution)
	row, err := s.queries(ctx).KeyAuthenticate(ctx, db.KeyAuthenticateParams{KeyHash: keyHash, Now: &now, StaleBefore: &stale})
	if err != nil {
		return Credential{}, time.Time{}, interpretError(err)
	}
	return Credential{
		Principal: auth.Principal{ClientID: row.APIClientID, KeyID: row.KeyID, Permissions: auth.FromStrings(row.Permissions)},
		Disabled:  row.DisabledAt != nil,
	}, row.LastUsedAt, nil
}
