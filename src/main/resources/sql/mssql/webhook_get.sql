-- One delivery by its id (the Readpast-Delivery header).
SET NOCOUNT ON;

SELECT w.*
FROM readpast_webhook AS w
WHERE w.delivery_id = TRY_CONVERT(uniqueidentifier, @delivery_id);
