CREATE TABLE "semi;colon" ("a""b;" int, "it's" text);
SELECT "a""b;" FROM "semi;colon";
SELECT U&"d\0061t;" FROM "";
