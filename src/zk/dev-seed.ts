/** Seed of the dev setup when none is configured. It is public: anyone can forge proofs for dev keys. */
export const DEFAULT_DEV_SEED = 'zkgate-insecure-dev-seed';
