package webhook_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/domain/webhook"
)

func TestActivates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from, to string
		want     bool
	}{
		{webhook.StatusDisabled, webhook.StatusActive, true},
		{webhook.StatusActive, webhook.StatusActive, false},
		{webhook.StatusActive, webhook.StatusDisabled, false},
		{webhook.StatusDisabled, webhook.StatusDisabled, false},
	} {
		require.Equal(t, tc.want, webhook.Activates(tc.from, tc.to), "%s -> %s", tc.from, tc.to)
	}
}

func TestCheckRoom(t *testing.T) {
	t.Parallel()
	require.NoError(t, webhook.CheckRoom(0))
	require.NoError(t, webhook.CheckRoom(webhook.MaxActiveEndpoints-1))
	require.ErrorIs(t, webhook.CheckRoom(webhook.MaxActiveEndpoints), webhook.ErrTooManyActive)
	require.ErrorIs(t, webhook.CheckRoom(webhook.MaxActiveEndpoints+3), webhook.ErrTooManyActive)
	require.Equal(t, "at most 20 webhook endpoints can be active; disable or delete one first", webhook.ErrTooManyActive.Error())
}

func TestCheckTestable(t *testing.T) {
	t.Parallel()
	require.NoError(t, webhook.CheckTestable(webhook.StatusActive))
	require.ErrorIs(t, webhook.CheckTestable(webhook.StatusDisabled), webhook.ErrTestDisabled)
}
