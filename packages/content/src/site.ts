// Read at build time by Vite; on the server (no import.meta.env) the defaults apply.
const env: Record<string, string | undefined> = (import.meta as { env?: Record<string, string | undefined> }).env ?? {};

/** Brand, contact and outbound links: configuration, overridable at build with VITE_* variables. */
export const site = {
  brand: env.VITE_BRAND_NAME ?? 'Giftwell',
  supportEmail: env.VITE_SUPPORT_EMAIL ?? 'support@giftwell.example',
  copyrightYear: 2025,
  consumerApp: {
    appStore: env.VITE_CONSUMER_APP_STORE_URL ?? 'https://apps.apple.com/app/giftwell/id6740000001',
    playStore: env.VITE_CONSUMER_PLAY_STORE_URL ?? 'https://play.google.com/store/apps/details?id=example.giftwell',
  },
  businessApp: {
    appStore: env.VITE_BUSINESS_APP_STORE_URL ?? 'https://apps.apple.com/app/giftwell-business/id6740000002',
    playStore:
      env.VITE_BUSINESS_PLAY_STORE_URL ?? 'https://play.google.com/store/apps/details?id=example.giftwell.business',
  },
  portal: {
    login: env.VITE_PORTAL_LOGIN_URL ?? 'https://business.giftwell.example/login',
    register: env.VITE_PORTAL_REGISTER_URL ?? 'https://business.giftwell.example/register',
  },
} as const;
