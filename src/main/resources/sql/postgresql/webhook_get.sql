-- One delivery by its id (the Readpast-Delivery header).
SELECT w.* FROM readpast_webhook AS w WHERE w.delivery_id = CAST(:delivery_id AS uuid)
