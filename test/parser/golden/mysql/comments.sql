# hash comment; with 'quote
SELECT 1; # trailing hash comment;
-- dash comment; 'quote
SELECT 1--1;
SELECT 2 -- comment needs the space;
;
SELECT 3 /* block; 'comment */ + 4;
/* leading; */ SELECT 5;
/* not nested /* here */ SELECT 6;
SELECT 7 -
-- comment right after a minus
8;
-- tail comment
