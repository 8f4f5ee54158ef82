package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// startAgain ends every page token refusal: the client's way out.
const startAgain = "start again from the first page, without pageToken"

// tokens issues and opens the metrics API's page tokens
// (docs/metrics-api.md, "Page tokens"): random
// UUIDs whose cursor the store keeps, valid for a fixed time from their
// issue, across restarts.
type tokens struct {
	store *store.Store
	ttl   time.Duration
	clock func() time.Time
}

// issue stores cursor for the request scope and returns the token that
// continues it.
func (t tokens) issue(scope string, cursor any) (string, error) {
	c, err := json.Marshal(cursor)
	if err != nil {
		return "", err
	}
	id, err := uuid.NewRandom()
	if err != nil {
		return "", fmt.Errorf("make a page token: %w", err)
	}
	if err := t.store.PutToken(id, store.Token{Scope: scope, Cursor: c, Expires: t.clock().Add(t.ttl).Unix()}); err != nil {
		return "", err
	}
	return id.String(), nil
}

// open reads the cursor of token into cursor. A token that is not one,
// unknown, expired or issued for another request is a 400 that tells the
// client to start again.
func (t tokens) open(token, scope string, cursor any) error {
	id, err := uuid.Parse(token)
	if err != nil || id.Version() != 4 {
		return rest.BadRequest("pageToken: not a page token of this API, got %s; %s", rest.Quote(token), startAgain)
	}
	rec, err := t.store.Token(id)
	if errors.Is(err, store.ErrNotFound) {
		return rest.BadRequest("pageToken: unknown or expired page token; %s", startAgain)
	}
	if err != nil {
		return rest.Unavailable("page tokens cannot be read").WithCause(err)
	}
	if t.clock().Unix() >= rec.Expires {
		return rest.BadRequest("pageToken: expired at %s; %s", time.Unix(rec.Expires, 0).UTC().Format(time.RFC3339), startAgain)
	}
	if rec.Scope != scope {
		return rest.BadRequest("pageToken: issued for another request; %s", startAgain)
	}
	if err := json.Unmarshal(rec.Cursor, cursor); err != nil {
		return rest.Unavailable("page token %s cannot be read", id).WithCause(err)
	}
	return nil
}
