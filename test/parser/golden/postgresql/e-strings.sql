SELECT E'it\'s; here', e'backslash \\', E'doubled '' quote;';
INSERT INTO t VALUES (e'\\'); SELECT E'\n;\t';
SELECT some'x' , 'e''s;';
SELECT 1;
