/** Text shared by the layout, the components and every page. */
export const common = {
  'app.name': 'fileshare',
  'app.tagline': 'Files, notes and file requests, encrypted in your browser before they leave it.',
  'app.logoAlt': '{title} logo',
  'app.footer': 'End-to-end encrypted: the key stays in the link and never reaches the server.',
  'app.skipToContent': 'Skip to content',
  'app.documentTitle': '{page} · {site}',
  'app.loading': 'Loading…',
  'app.leaveBusy': 'Leaving now would stop or lose what is under way on this page. Leave anyway?',
  'app.loadFailed': 'This page could not be loaded. Check your connection and reload.',
  'app.language': 'Language',
  'app.configFailed': 'The server could not be reached. Check your connection and reload.',

  'nav.label': 'Main',
  'nav.menu': 'Menu',
  'nav.upload': 'Send files',
  'nav.note': 'Note',
  'nav.request': 'Request files',
  'nav.history': 'My uploads',

  'action.copy': 'Copy',
  'action.copied': 'Copied',
  'action.copyFailed': 'Copying failed; select the text and copy it yourself.',
  'action.share': 'Share',
  'action.copyNamed': 'Copy: {label}',
  'action.shareNamed': 'Share: {label}',
  'action.shareCopied': 'Sharing is not available here, so the link was copied instead.',
  'action.cancel': 'Cancel',
  'action.delete': 'Delete',
  'action.retry': 'Try again',
  'action.close': 'Close',
  'action.showPassword': 'Show password',
  'action.hidePassword': 'Hide password',

  'field.password': 'Password',
  'field.passwordOptional': 'Password (optional)',
  'field.passwordHint': 'Whoever opens the link will also need this password.',

  'option.downloads': { one: '{count} download', other: '{count} downloads' },
  'option.views': { one: '{count} view', other: '{count} views' },
  'option.uploads': { one: '{count} upload', other: '{count} uploads' },

  'progress.label': 'Progress',
  'progress.bytes': '{sent} of {total}',
  'progress.speed': '{rate}/s',
  'progress.eta': '{time} left',
  'progress.etaUnknown': 'estimating time left…',
  'progress.transport.websocket': 'WebSocket',
  'progress.transport.http': 'HTTP',
  'progress.via': 'Transfer method: {transport}',
  'progress.preparing': 'Preparing…',

  'qr.alt': 'QR code of the link',

  'time.expiresAt': 'Expires {date}',
  'time.expired': 'Expired',

  'error.title': 'Something went wrong',
  'error.notFound.title': 'Not found',
  'error.notFound.body':
    'Nothing is stored under this link. It may have been deleted, or the link was not copied whole (including the part after #).',
  'error.gone.title': 'No longer available',
  'error.gone.body': 'This link has expired or its download limit has been used up.',
  'error.gone.expired': 'This link has expired.',
  'error.gone.usedUp': 'This link has been opened as often as it allowed and no longer works.',
  'error.sendNew': 'Send something new',
  'error.badLink.title': 'Broken link',
  'error.badLink.body':
    'This link is incomplete or damaged. Ask for it again and copy it whole, including the part after #.',
  'error.wrongKey.title': 'The link’s key does not fit',
  'error.wrongKey.body':
    'The link’s key does not open this. Check that you copied the whole link, including the part after #.',
  'error.wrongKey.file':
    'The link’s key does not open this file. Check that you copied the whole link, including the part after #.',
  'error.wrongKey.note':
    'The link’s key does not open this note. Check that you copied the whole link, including the part after #.',
  'error.ownerTokenRefused':
    'The server did not accept this browser’s right to change it. It may belong to a link sent from elsewhere.',
  'error.locked.title': 'Too many wrong passwords',
  'error.locked.body': 'Try again in {time}.',
  'error.locked.bodyLater': 'Try again later.',
  'error.locked.message': 'Too many wrong passwords. Try again in {time}.',
  'error.locked.messageLater': 'Too many wrong passwords. Try again later.',
  'error.wrongPassword': 'Wrong password. Try again.',
  'error.sourceChanged': '{name} changed while it was being sent. Send it again.',
  'error.sourcesChanged': 'The files changed while they were being sent. Send them again.',
  'error.network': 'The server could not be reached. Check your connection and try again.',
  'error.disabled': 'This feature is turned off on this server.',
  'error.tooLarge': 'This is larger than the server accepts.',
  'error.rateLimited': 'Too many requests. Wait a moment and try again.',
  'error.quotaExceeded':
    'This is more than is left of your upload allowance on this server. Try a smaller upload, or wait until the allowance renews.',
  'error.quotaExhausted': 'Your upload allowance on this server is used up. It renews in {time}.',
  'error.quotaExhaustedLater': 'Your upload allowance on this server is used up. Try again later.',
  'quota.left':
    'Your upload allowance on this server: {left} of {limit} left. It renews in {time}.',
  'quota.over':
    'This is larger than the {left} left of your upload allowance on this server. It renews in {time}.',
  'error.loginRequired': 'You need to sign in for this.',
  'error.generic': 'Something went wrong: {message}',
  'error.integrity':
    'The data did not pass the integrity check: it is damaged or was tampered with. Nothing of it should be trusted.',

  'notFound.title': 'Page not found',
  'notFound.body': 'There is no page at this address.',
  'notFound.home': 'Go to the start page',
} as const
