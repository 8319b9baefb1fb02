// The shop aggregate: connections, deliveries, carts, checkouts, orders with their attribution, abandoned-cart steps.
export * from "./shop-connections.repo";
export * from "./shop-webhooks.repo";
export * from "./shop-processing.repo";
export * from "./abandoned-cart.repo";
export * from "./shop-orders.repo";
