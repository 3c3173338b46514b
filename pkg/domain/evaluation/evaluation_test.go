package evaluation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
)

func TestCheckStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status string
		want   error
	}{
		{submission.StatusCollecting, nil},
		{submission.StatusCompleted, nil},
		{submission.StatusFailed, nil},
		{submission.StatusCanceled, submission.ErrCanceled},
		{submission.StatusEvaluating, evaluation.ErrInProgress},
	} {
		err := evaluation.CheckStart(tc.status)
		if tc.want == nil {
			require.NoError(t, err, tc.status)
			continue
		}
		require.ErrorIs(t, err, tc.want, tc.status)
	}
}

func TestCheckInputs(t *testing.T) {
	t.Parallel()
	require.ErrorIs(t, evaluation.CheckInputs(0), evaluation.ErrNoReadyUpload)
	require.NoError(t, evaluation.CheckInputs(1))
}

func TestCheckPages(t *testing.T) {
	t.Parallel()
	require.NoError(t, evaluation.CheckPages(2000, 2000))
	require.NoError(t, evaluation.CheckPages(1e6, 0), "0 is no cap")
	var limit *domain.LimitError
	require.ErrorAs(t, evaluation.CheckPages(2001, 2000), &limit)
}

func TestCheckLatest(t *testing.T) {
	t.Parallel()
	require.NoError(t, evaluation.CheckLatest(true))
	require.ErrorIs(t, evaluation.CheckLatest(false), evaluation.ErrOutdated)
}

func TestCheckActiveAndRunning(t *testing.T) {
	t.Parallel()
	for status, active := range map[string]bool{
		evaluation.StatusQueued: true, evaluation.StatusRunning: true,
		evaluation.StatusCompleted: false, evaluation.StatusFailed: false, evaluation.StatusCanceled: false,
	} {
		require.Equal(t, active, evaluation.Active(status), status)
		if active {
			require.NoError(t, evaluation.CheckActive(status), status)
		} else {
			require.ErrorIs(t, evaluation.CheckActive(status), evaluation.ErrOver, status)
		}
		if status == evaluation.StatusRunning {
			require.NoError(t, evaluation.CheckRunning(status))
		} else {
			require.ErrorIs(t, evaluation.CheckRunning(status), evaluation.ErrOver, status)
		}
	}
}
