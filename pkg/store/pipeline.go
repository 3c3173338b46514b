package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/doceval/doceval/gen/db"
)

// A pipelined transaction (runPipelinedTx) spends no round trip of its own: BEGIN goes
// with its first statement (beginWith) and the statement it leaves for the end
// (Tx.atCommit) goes with COMMIT (commitReportingID).

// beginWith is a connection whose first statement is sent in one round trip behind
// BEGIN; later ones run as they are in the transaction it began.
type beginWith struct {
	conn  *pgx.Conn
	begun bool
}

var _ db.DBTX = (*beginWith)(nil)

// begin sends BEGIN alone, when no statement has begun the transaction yet.
func (b *beginWith) begin(ctx context.Context) error {
	if b.begun {
		return nil
	}
	b.begun = true
	_, err := b.conn.Exec(ctx, "BEGIN")
	return err
}

// batch sends BEGIN and sql in one pipeline (an explicit BEGIN in a batch opens a
// transaction that outlives it).
func (b *beginWith) batch(ctx context.Context, sql string, args []any) pgx.BatchResults {
	b.begun = true
	var batch pgx.Batch
	batch.Queue("BEGIN")
	batch.Queue(sql, args...)
	return b.conn.SendBatch(ctx, &batch)
}

func (b *beginWith) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if b.begun {
		return b.conn.Exec(ctx, sql, args...)
	}
	br := b.batch(ctx, sql, args)
	_, err := br.Exec()
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
	}
	return tag, errors.Join(err, br.Close())
}

func (b *beginWith) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if b.begun {
		return b.conn.QueryRow(ctx, sql, args...)
	}
	return batchRow{b.batch(ctx, sql, args)}
}

// Query sends BEGIN on its own first: rows read from a batch would hold it open.
func (b *beginWith) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := b.begin(ctx); err != nil {
		return nil, err
	}
	return b.conn.Query(ctx, sql, args...)
}

// batchRow is the row of the statement behind BEGIN.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	_, err := r.br.Exec()
	if err == nil {
		err = r.br.QueryRow().Scan(dest...)
	}
	if closeErr := r.br.Close(); err == nil {
		err = closeErr
	}
	return err
}

// statement is a statement with its arguments, held to be sent later.
type statement struct {
	sql  string
	args []any
}

// capture records the statement a query sends instead of sending it.
type capture struct{ statement }

func (c *capture) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c.sql, c.args = sql, args
	return pgconn.CommandTag{}, nil
}

func (c *capture) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, errors.New("store: only a statement without rows is sent with COMMIT")
}

func (c *capture) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{} }

type errRow struct{}

func (errRow) Scan(...any) error {
	return errors.New("store: only a statement without rows is sent with COMMIT")
}

// atCommit leaves write, a statement without rows, to be sent with COMMIT in a
// pipelined transaction; its failure rolls the transaction back (atCommitRefused).
func (tx *Tx) atCommit(write func(q *db.Queries) error) error {
	var c capture
	if err := write(db.New(&c)); err != nil {
		return err
	}
	tx.last = &c.statement
	return nil
}

// atCommitRefused is the server's refusal of the statement sent with COMMIT: the
// transaction was rolled back.
type atCommitRefused struct{ err error }

func (e atCommitRefused) Error() string { return "the statement sent with COMMIT: " + e.err.Error() }
func (e atCommitRefused) Unwrap() error { return e.err }

// prepared is a statement ready to be sent in a pipeline: prepared on the connection
// (once, then kept) and its arguments encoded as pgx encodes them.
type prepared struct {
	sd  *pgconn.StatementDescription
	eqb pgx.ExtendedQueryBuilder
}

func prepare(ctx context.Context, conn *pgx.Conn, st *statement) (*prepared, error) {
	sd, err := conn.Prepare(ctx, st.sql, st.sql)
	if err != nil {
		return nil, err
	}
	p := &prepared{sd: sd}
	if err := p.eqb.Build(conn.TypeMap(), sd, st.args); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *prepared) send(pl *pgconn.Pipeline) {
	pl.SendQueryStatement(p.sd, p.eqb.ParamValues, p.eqb.ParamFormats, p.eqb.ResultFormats)
}
