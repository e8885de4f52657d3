/* leading /* nested; */ still comment; ' */
SELECT 1 /* inside /* nested ; */ kept */ + 2;
-- it's a comment with a quote; and a semicolon
SELECT 3 -- trailing; 'quote
   , 4;
SELECT 5 --no space needed in postgresql;
;
SELECT 6 - -7;
/* tail comment only; */
-- and a line comment
