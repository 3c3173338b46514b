package scale_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cloneRows inserts copies of one table's rows picked by base (a WHERE clause over alias
// b), one per row of from (a FROM list, such as a generate_series), and returns how
// many. Every column is copied unless set: an expression in set replaces it, and "" leaves
// it to its default. Generated columns take their default. Copying whole rows keeps the
// seed right as the schema grows.
func cloneRows(ctx context.Context, pool *pgxpool.Pool, table, base string, set map[string]string, from string, args ...any) (int64, error) {
	rows, err := pool.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1
		  AND is_generated = 'NEVER' AND coalesce(identity_generation, '') <> 'ALWAYS'
		ORDER BY ordinal_position`, table)
	if err != nil {
		return 0, err
	}
	var cols, exprs []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return 0, err
		}
		e, ok := set[c]
		switch {
		case !ok:
			e = "b." + c
		case e == "":
			continue
		}
		cols, exprs = append(cols, c), append(exprs, e)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s b, %s WHERE %s",
		table, strings.Join(cols, ", "), strings.Join(exprs, ", "), table, from, base)
	tag, err := pool.Exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("clone %s: %w", table, err)
	}
	return tag.RowsAffected(), nil
}
