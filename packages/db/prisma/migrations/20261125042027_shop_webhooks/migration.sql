-- CreateTable
CREATE TABLE "shop_connections" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_domain" TEXT NOT NULL,
    "secret_enc" TEXT,
    "previous_secret_enc" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "duplicate_answer" TEXT NOT NULL DEFAULT 'conflict',
    "click_window_hours" INTEGER NOT NULL DEFAULT 120,
    "open_window_hours" INTEGER NOT NULL DEFAULT 24,
    "abandoned_steps_minutes" INTEGER[] DEFAULT ARRAY[60]::INTEGER[],
    "abandoned_template_id" UUID,
    "abandoned_from_email" TEXT,
    "abandoned_from_name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shop_webhook_events" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_id" UUID NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "shop_webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shop_carts" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_id" UUID NOT NULL,
    "token" TEXT NOT NULL,
    "lead_id" UUID,
    "line_items" JSONB NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "currency" TEXT,
    "platform_updated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_carts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shop_checkouts" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_id" UUID NOT NULL,
    "token" TEXT NOT NULL,
    "cart_token" TEXT,
    "email" TEXT,
    "lead_id" UUID,
    "recovery_url" TEXT,
    "line_items" JSONB NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "subtotal_minor" BIGINT,
    "currency" TEXT NOT NULL,
    "gateways" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_checkouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shop_orders" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_id" UUID NOT NULL,
    "order_id" TEXT NOT NULL,
    "email" TEXT,
    "lead_id" UUID,
    "cart_token" TEXT,
    "checkout_token" TEXT,
    "total_minor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "presentment_total_minor" BIGINT,
    "presentment_currency" TEXT,
    "payments" JSONB NOT NULL DEFAULT '[]',
    "test" BOOLEAN NOT NULL DEFAULT false,
    "cancelled" BOOLEAN NOT NULL DEFAULT false,
    "financial_status" TEXT,
    "placed_at" TIMESTAMPTZ(3) NOT NULL,
    "attributed_touch" TEXT,
    "attributed_activity_id" UUID,
    "attributed_campaign_id" UUID,
    "attributed_automation_run_id" UUID,
    "attributed_revenue_minor" BIGINT NOT NULL DEFAULT 0,
    "attribution_candidates" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "abandoned_cart_steps" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "shop_id" UUID NOT NULL,
    "checkout_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "claim_expires_at" TIMESTAMPTZ(3),
    "reason" TEXT,
    "email_message_id" UUID,
    "lead_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "abandoned_cart_steps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "shop_connections_shop_domain_key" ON "shop_connections"("shop_domain");

-- CreateIndex
CREATE INDEX "shop_connections_project_id_idx" ON "shop_connections"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "shop_webhook_events_shop_id_webhook_id_key" ON "shop_webhook_events"("shop_id", "webhook_id");

-- CreateIndex
CREATE UNIQUE INDEX "shop_carts_shop_id_token_key" ON "shop_carts"("shop_id", "token");

-- CreateIndex
CREATE INDEX "shop_checkouts_shop_id_cart_token_idx" ON "shop_checkouts"("shop_id", "cart_token");

-- CreateIndex
CREATE UNIQUE INDEX "shop_checkouts_shop_id_token_key" ON "shop_checkouts"("shop_id", "token");

-- CreateIndex
CREATE INDEX "shop_orders_attributed_campaign_id_idx" ON "shop_orders"("attributed_campaign_id");

-- CreateIndex
CREATE INDEX "shop_orders_shop_id_cart_token_idx" ON "shop_orders"("shop_id", "cart_token");

-- CreateIndex
CREATE INDEX "shop_orders_shop_id_checkout_token_idx" ON "shop_orders"("shop_id", "checkout_token");

-- CreateIndex
CREATE UNIQUE INDEX "shop_orders_shop_id_order_id_key" ON "shop_orders"("shop_id", "order_id");

-- CreateIndex
CREATE INDEX "abandoned_cart_steps_due_at_idx" ON "abandoned_cart_steps"("due_at");

-- CreateIndex
CREATE UNIQUE INDEX "abandoned_cart_steps_checkout_id_step_key" ON "abandoned_cart_steps"("checkout_id", "step");
