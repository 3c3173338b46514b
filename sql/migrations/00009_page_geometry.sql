-- Page geometry: the page size (points for a PDF page, pixels for an image) and its
-- words with page-relative boxes, so the evaluator can read a page by its layout and
-- point a Citation's regions at the excerpt. words is a jsonb array of
-- [text, x0, y0, x1, y1, conf, block, line] rows (coordinates and conf rounded to four
-- decimals). NULL on pages extracted before geometry was kept and on DOC files: the
-- evaluator reads their text alone.

-- +goose Up
ALTER TABLE upload_pages
    ADD COLUMN width  double precision,
    ADD COLUMN height double precision,
    ADD COLUMN words  jsonb;

-- +goose Down
ALTER TABLE upload_pages
    DROP COLUMN words,
    DROP COLUMN height,
    DROP COLUMN width;
