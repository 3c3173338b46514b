// Package scale holds the scale test (make scale, not in CI): a database seeded with a
// production-sized history — 1,000 tenants, 1 M submissions, 10 M events, 5 M webhook
// deliveries of which 100 k are due at once — and the latencies of the reads and the
// maintenance work that must stay flat as data grows, printed as a table with the query
// plans of the reads. See TestScale.
package scale
