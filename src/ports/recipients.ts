/**
 * Who receives an account's expiry notifications. The service's rules leave the
 * addresses to the host (its admins, a billing contact, a team list), so the host
 * answers per account. Return an empty list when the account has nobody to tell:
 * the notifier then counts that passcode's email as failed with `ERR_NO_RECIPIENTS`
 * and tries again on its next pass.
 *
 * @param accountId - the account that owns the passcode
 * @returns email addresses, for example `['ops@example.com']`
 * @example
 * ```ts
 * const recipients: NotificationRecipients = async (accountId) => {
 *   const admins = await db.admins.forAccount(accountId)
 *   return admins.map((admin) => admin.email)
 * }
 * const auth = createPasscodeAuth({ store, mailer, recipients })
 * ```
 */
export type NotificationRecipients = (accountId: string) => readonly string[] | Promise<readonly string[]>
