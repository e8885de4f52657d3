#!/usr/bin/env clickhouse-local --queries-file
# hash comment; with 'quote
SELECT 1 /* outer /* nested; */ still comment; */ + 2;
-- dash comment; 'quote
SELECT 3 #not_a_comment_without_space
;
SELECT 4 - -5;
/* tail; */
