package httpx_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/httpx"
)

func TestClientSlots(t *testing.T) {
	t.Parallel()
	slots := httpx.NewClientSlots(2)
	a, b := uuid.New(), uuid.New()
	r1, ok := slots.Take(a)
	require.True(t, ok)
	r2, ok := slots.Take(a)
	require.True(t, ok)
	_, ok = slots.Take(a)
	require.False(t, ok, "a third slot for one client")
	_, ok = slots.Take(b)
	require.True(t, ok, "another client has slots of its own")
	r1()
	r1() // a second release gives nothing back twice
	_, ok = slots.Take(a)
	require.True(t, ok)
	_, ok = slots.Take(a)
	require.False(t, ok)
	r2()

	unbounded := httpx.NewClientSlots(0)
	for range 100 {
		_, ok := unbounded.Take(a)
		require.True(t, ok)
	}
}
