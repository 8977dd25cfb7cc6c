export { passcodeAuthPlugin } from './plugin'
export type { PasscodeAuthPluginOptions, RequirePasscodeHook } from './plugin'
export type { Principal } from '../core/entities'
