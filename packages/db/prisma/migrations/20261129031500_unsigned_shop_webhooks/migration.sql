-- Shop webhooks from a store no project connected (issue 43): a delivery for an unknown shop domain is accepted for
-- the project its x-project-id names, which connects the domain there without a secret ('delivery'). What came in
-- unsigned is marked so: the delivery and its order (counted apart in the campaign stats), and an unsigned
-- checkout starts no abandoned-cart emails unless the operator allows them for that shop. A project may instead
-- refuse every unsigned delivery (require_signed_shop_webhooks). Every new column has a constant default, so
-- adding it rewrites no table.

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "require_signed_shop_webhooks" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "shop_connections" ADD COLUMN     "allow_unsigned_abandoned_cart" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "connected_by" TEXT NOT NULL DEFAULT 'admin';

-- AlterTable
ALTER TABLE "shop_orders" ADD COLUMN     "signed" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "shop_webhook_events" ADD COLUMN     "signed" BOOLEAN NOT NULL DEFAULT true;
