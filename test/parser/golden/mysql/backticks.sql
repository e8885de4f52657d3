CREATE TABLE `semi;colon` (`a``b;` int, `it's` text, `back\` int);
SELECT `a``b;` FROM `semi;colon`;
