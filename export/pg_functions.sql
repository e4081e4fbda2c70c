-- SQLite's built-ins that faultline's queries use, mirrored in the
-- PostgreSQL schema that faultline export --to fills, so that one query
-- text (queries/NAME.sql) reads the same on both engines.  An export,
-- and a query, makes them (CREATE OR REPLACE) when the schema lacks this
-- file's (export/pg_functions.c keeps its hash), so a schema an older
-- export made gets them too; the statements are split at lines that hold
-- only ';'.  Each mirrors SQLite for the arguments faultline's queries
-- give it: NULL in gives NULL out where SQLite does.
--
-- strftime(FORMAT, SECONDS, 'unixepoch'): %Y %m %d %H %M %S %j %s %%, UTC
CREATE OR REPLACE FUNCTION strftime(fmt text, secs bigint, modifier text)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
	t timestamp;
	o text := '';
	i int := 1;
	c text;
BEGIN
	IF fmt IS NULL OR secs IS NULL OR modifier IS DISTINCT FROM 'unixepoch' THEN
		RETURN NULL;
	END IF;
	t := to_timestamp(secs) AT TIME ZONE 'UTC';
	WHILE i <= length(fmt) LOOP
		c := substr(fmt, i, 1);
		IF c = '%' THEN
			i := i + 1;
			c := CASE substr(fmt, i, 1)
				WHEN 'Y' THEN to_char(t, 'YYYY') WHEN 'm' THEN to_char(t, 'MM')
				WHEN 'd' THEN to_char(t, 'DD') WHEN 'H' THEN to_char(t, 'HH24')
				WHEN 'M' THEN to_char(t, 'MI') WHEN 'S' THEN to_char(t, 'SS')
				WHEN 'j' THEN to_char(t, 'DDD') WHEN 's' THEN secs::text
				WHEN '%' THEN '%' END;
			IF c IS NULL THEN
				RETURN NULL;
			END IF;
		END IF;
		o := o || c;
		i := i + 1;
	END LOOP;
	RETURN o;
END
$f$
;
-- printf(FORMAT, VALUE): one conversion, %d %s %f %g %% with the flags
-- '0' and '-', a width and a precision, as SQLite writes them.
CREATE OR REPLACE FUNCTION _fl_printf(fmt text, v text)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
	m text[];
	body text;
	n numeric;
	p int;
	e int;
	w int;
BEGIN
	IF fmt IS NULL THEN
		RETURN NULL;
	END IF;
	m := regexp_match(fmt, '^(.*?)%([-0]*)([0-9]*)(?:\.([0-9]+))?([dsfg])(.*)$');
	IF m IS NULL THEN
		RETURN replace(fmt, '%%', '%');
	END IF;
	IF m[5] = 's' THEN
		body := coalesce(v, '');
	ELSE
		n := coalesce(v::numeric, 0);
		p := coalesce(m[4]::int, 6);
		IF m[5] = 'd' THEN
			body := trunc(n)::text;
		ELSIF m[5] = 'f' THEN
			body := round(n, p)::text;
		ELSIF n = 0 THEN
			body := '0';
		ELSE
			p := greatest(p, 1);
			e := floor(log(abs(n)));
			IF e < -4 OR e >= p THEN
				body := rtrim(rtrim(round(n / 10::numeric ^ e, p - 1)::text, '0'), '.')
					|| 'e' || CASE WHEN e < 0 THEN '-' ELSE '+' END
					|| lpad(abs(e)::text, 2, '0');
			ELSE
				body := round(n, p - 1 - e)::text;
				IF position('.' IN body) > 0 THEN
					body := rtrim(rtrim(body, '0'), '.');
				END IF;
			END IF;
		END IF;
	END IF;
	w := coalesce(nullif(m[3], '')::int, 0);
	IF position('-' IN m[2]) > 0 THEN
		body := rpad(body, greatest(w, length(body)));
	ELSIF position('0' IN m[2]) > 0 AND m[5] <> 's' AND body LIKE '-%' THEN
		body := '-' || lpad(substr(body, 2), greatest(w - 1, length(body) - 1), '0');
	ELSIF position('0' IN m[2]) > 0 AND m[5] <> 's' THEN
		body := lpad(body, greatest(w, length(body)), '0');
	ELSE
		body := lpad(body, greatest(w, length(body)));
	END IF;
	RETURN replace(m[1], '%%', '%') || body || replace(m[6], '%%', '%');
END
$f$
;
CREATE OR REPLACE FUNCTION printf(fmt text, v bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT _fl_printf(fmt, v::text) $f$
;
CREATE OR REPLACE FUNCTION printf(fmt text, v numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT _fl_printf(fmt, v::text) $f$
;
CREATE OR REPLACE FUNCTION printf(fmt text, v double precision) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT _fl_printf(fmt, v::numeric::text) $f$
;
CREATE OR REPLACE FUNCTION printf(fmt text, v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT _fl_printf(fmt, v) $f$
;
-- json_extract(JSON, '$.key' or '$."key"' or '$.a.b'): the value as text.
CREATE OR REPLACE FUNCTION json_extract(j jsonb, path text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
SELECT CASE WHEN path = '$' THEN j #>> '{}'
	    WHEN path LIKE '$."%"' THEN j ->> substr(path, 4, length(path) - 4)
	    WHEN path LIKE '$.%' THEN j #>> string_to_array(substr(path, 3), '.')
       END
$f$
;
-- json_each(JSON): an object's keys and values (as text), as SQLite's
-- json_each gives them to a query that reads key and value.
CREATE OR REPLACE FUNCTION json_each(j jsonb) RETURNS TABLE (key text, value text)
LANGUAGE sql IMMUTABLE AS $f$ SELECT * FROM jsonb_each_text(j) $f$
;
-- group_concat(X [, SEPARATOR]): string_agg, ',' by default.
CREATE OR REPLACE FUNCTION _fl_concat(acc text, v text, sep text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END
$f$
;
CREATE OR REPLACE FUNCTION _fl_concat(acc text, v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT _fl_concat(acc, v, ',') $f$
;
CREATE OR REPLACE AGGREGATE group_concat(text, text) (sfunc = _fl_concat, stype = text)
;
CREATE OR REPLACE AGGREGATE group_concat(text) (sfunc = _fl_concat, stype = text)
;
-- min(A, B) and max(A, B) of two values: NULL when either is, as in SQLite.
CREATE OR REPLACE FUNCTION min(a anycompatible, b anycompatible) RETURNS anycompatible
LANGUAGE sql IMMUTABLE AS $f$
SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN a < b THEN a ELSE b END
$f$
;
CREATE OR REPLACE FUNCTION max(a anycompatible, b anycompatible) RETURNS anycompatible
LANGUAGE sql IMMUTABLE AS $f$
SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN a > b THEN a ELSE b END
$f$
;
-- round(X, DIGITS) of a double, which PostgreSQL rounds only as numeric.
CREATE OR REPLACE FUNCTION round(v double precision, digits integer)
RETURNS double precision LANGUAGE sql IMMUTABLE AS $f$
SELECT round(v::numeric, digits)::double precision
$f$
;
-- iif(CONDITION, A, B) and ifnull(A, B).
CREATE OR REPLACE FUNCTION iif(c boolean, a anycompatible, b anycompatible)
RETURNS anycompatible LANGUAGE sql IMMUTABLE AS $f$ SELECT CASE WHEN c THEN a ELSE b END $f$
;
CREATE OR REPLACE FUNCTION ifnull(a anycompatible, b anycompatible)
RETURNS anycompatible LANGUAGE sql IMMUTABLE AS $f$ SELECT coalesce(a, b) $f$
;
-- ORDER BY x COLLATE "binary": bytewise, SQLite's default, whatever the
-- database's locale.
CREATE COLLATION IF NOT EXISTS "binary" FROM "C"
