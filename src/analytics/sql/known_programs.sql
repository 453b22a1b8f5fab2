-- Programs txray has any data for (attempts in retention or a deploy): the unknown-program 404.
SELECT program FROM programs WHERE scope = '*' UNION SELECT program FROM deploys ORDER BY program
