/** Text of the file request pages: creating one (`/request`) and sending into one (`/r/:id`). */
export const requests = {
  'request.new.title': 'Request files',
  'request.new.intro':
    'Ask people to send you files. They are encrypted in the sender’s browser, and only your inbox link opens them.',
  'request.message': 'Message to senders',
  'request.messageHint': 'Shown on the upload page, for example what to send. It is encrypted too.',
  'request.messageTooLong': 'The message is too long.',
  'request.acceptsNote': 'Senders may add a note',
  'request.expiry': 'Open for',
  'request.uploads': 'Number of uploads',
  'request.maxSize': 'Largest upload',
  'request.downloads': 'Downloads per upload',
  'request.password': 'Inbox password (optional)',
  'request.passwordRequired': 'Inbox password (required by this server)',
  'request.passwordHint': 'Opening the inbox link will also need this password.',
  'request.passwordMissing': 'This server requires a password for the inbox.',
  'request.limit': '{count} of {limit} new requests left today.',
  'request.limitReached': 'You have used today’s {limit} requests. More are possible from {date}.',
  'request.submit': 'Create request',
  'request.notify.title': 'Tell me when a file arrives (optional)',
  'request.notify.email': 'Email address',
  'request.notify.webhook': 'Webhook URL (https)',
  'request.notify.privacy':
    'The server learns this address or URL in order to send the notice. The notice says only that a file arrived, when, and roughly how large: never a file name or a link.',
  'request.notify.secret': 'Webhook signing key (shown only now)',
  'request.notify.secretHint':
    'Each webhook carries X-Fileshare-Signature: sha256= and the HMAC-SHA256 of its body under this key.',
  'request.creating': 'Creating…',
  'request.failed': 'The request could not be created: {message}',

  'request.done.title': 'Your file request is ready',
  'request.done.uploadLink': 'Upload link (for senders)',
  'request.done.uploadHint':
    'With this link people can send you files. They cannot see what others sent.',
  'request.done.inboxLink': 'Inbox link (yours)',
  'request.done.inboxHint':
    'Anyone with this link can read, download and delete what was sent. Keep it private: it cannot be recovered, so save it now.',
  'request.done.inboxHintPassword':
    'Anyone with this link and the password you chose can read, download and delete what was sent. Keep it private: it cannot be recovered, so save it now.',
  'request.done.uploads': { one: 'Takes {count} upload', other: 'Takes {count} uploads' },
  'request.done.uploadQr': 'QR code of the upload link',
  'request.done.closes': 'Takes uploads until {date}',
  'request.done.openInbox': 'Open the inbox',
  'request.done.another': 'Create another request',
  'request.historyLabel': 'File request: {message}',

  'request.send.title': 'Send files',
  'request.send.checking': 'Opening the request…',
  'request.send.intro':
    'Someone asked you for files. They are encrypted before they leave your browser; only the requester can open them.',
  'request.send.message': 'Message from the requester',
  'request.send.noMessage': 'The requester left no message.',
  'request.send.closes': 'Open until {date}',
  'request.send.left': { one: '{count} upload left', other: '{count} uploads left' },
  'request.send.maxSize': 'Up to {size} per upload',
  'request.send.note': 'Note (optional)',
  'request.send.noteHint': 'Sent encrypted along with your files.',
  'request.send.noteTooLong': 'The note is too long ({size} at most).',
  'request.send.noRoomForNote':
    'Only one upload is left, so files and a note cannot both be sent. Send one of them.',
  'request.send.heldByUnfinished':
    'This request has no room for another upload while your unfinished upload of {name} holds its place. Resume it with the same files, or start a new upload, which ends it.',
  'request.send.empty': 'Add files first.',
  'request.send.emptyOrNote': 'Add files or write a note first.',
  'request.send.tooLarge': 'Together these are larger than the {max} this request accepts.',
  'request.send.tooMany': 'This request accepts at most {max} files per upload.',
  'request.send.submit': 'Send',
  'request.send.sending': 'Encrypting and sending…',
  'request.send.sendingNote': 'Sending the note…',
  'request.send.cancelled': 'Sending was cancelled. Nothing was kept.',
  'request.send.failed': 'Sending failed: {message}',
  'request.send.done.title': 'Sent',
  'request.send.done.body':
    'What you sent was encrypted and delivered. Only the requester can open it.',
  'request.send.done.another': 'Send more',
  'request.send.closed.title': 'This request is closed',
  'request.send.closed.body':
    'The requester closed it or it has expired, so it takes no more files. Ask them for a new link.',
  'request.send.full.title': 'This request is full',
  'request.send.full.body':
    'It has received all the uploads it accepts. Ask the requester for a new link.',
} as const
