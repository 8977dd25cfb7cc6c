export { requirePasscode } from './require-passcode'
export { connectMiddleware } from './connect-middleware'
export type { Principal } from '../core/entities'
