// Websocket PubSub over the embedded ledger: the hub (subscriptions, commitment), the params, the server.
export { Hub, type Client, type HubLimits } from './hub.js';
export { PubSubServer, type PubSubOptions } from './server.js';
export { SUBSCRIBE_METHODS } from './params.js';
