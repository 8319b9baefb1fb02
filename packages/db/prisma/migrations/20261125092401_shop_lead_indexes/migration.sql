-- CreateIndex
CREATE INDEX "abandoned_cart_steps_lead_id_idx" ON "abandoned_cart_steps"("lead_id");

-- CreateIndex
CREATE INDEX "shop_checkouts_shop_id_lead_id_idx" ON "shop_checkouts"("shop_id", "lead_id");

-- CreateIndex
CREATE INDEX "shop_orders_shop_id_lead_id_idx" ON "shop_orders"("shop_id", "lead_id");
