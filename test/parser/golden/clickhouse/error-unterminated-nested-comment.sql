SELECT 1;
/* outer /* inner */
SELECT 2;
