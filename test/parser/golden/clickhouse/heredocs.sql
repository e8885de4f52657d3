SELECT $$a;b$$;
SELECT $heredoc$ a;b $heredoc$;
SELECT $tag$ 'not a quote; $$ not the end $Tag$ nor this $tag$ AS x;
SELECT $1$x;y$1$, $_$;$_$, $$$$;
SELECT length($$
multi; line -- not a comment
$$);
SELECT concat('a;', $$b;$$);
SELECT 1 AS a$$b, a$$b;
SELECT 1 AS $x, $x;
SELECT 2 AS $a$;
SELECT 3;
