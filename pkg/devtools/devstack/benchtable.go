package devstack

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// benchLine matches a result line of go test -bench: name-GOMAXPROCS, iterations, ns/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+([\d.]+) ns/op`)

// BenchTable reads go test -bench output and prints, per benchmark group
// (BenchmarkX/...), each case's time per operation, its rate, and its ratio against the
// group's first case — the baseline measured in the same run, so the ratio means
// something on a shared, noisy machine.
func BenchTable(r io.Reader, w io.Writer) error {
	type result struct {
		name  string
		ns    float64
		extra string // further metrics of the line: MB/s, custom units
	}
	var order []string
	groups := map[string][]result{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[3], 64)
		if err != nil || ns <= 0 {
			continue
		}
		group, name, _ := strings.Cut(m[1], "/")
		if _, ok := groups[group]; !ok {
			order = append(order, group)
		}
		extra := strings.Join(strings.Fields(benchLine.ReplaceAllString(strings.TrimSpace(sc.Text()), "")), " ")
		groups[group] = append(groups[group], result{name: name, ns: ns, extra: extra})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no benchmark results in the input")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tcase\tµs/op\tops/s\tvs baseline\tother\t")
	for _, g := range order {
		base := groups[g][0].ns
		for i, r := range groups[g] {
			ratio := fmt.Sprintf("%.2fx", base/r.ns)
			if i == 0 {
				ratio = "baseline"
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%s\t%s\t\n", g, r.name, r.ns/1e3, rate(1e9/r.ns), ratio, r.extra)
		}
	}
	return tw.Flush()
}

// rate prints an ops/s figure with sensible precision.
func rate(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.0f", r)
}
