INSERT INTO t VALUES ('héllo; wörld');
SELECT '日本語;' AS "列";
SELECT '😀;😀', 2;   SELECT 3;
