/** Text of the About page (`/about`). */
export const about = {
  'about.title': 'About',
  'about.intro':
    '{site} sends files, notes and file requests encrypted end to end: your browser encrypts them before they leave it, and only people with the link can decrypt them.',
  'about.howTitle': 'How it works',
  'about.how':
    'Each link carries its key after the # sign. Browsers never send that part to a server, so the key stays with you and the people you give the link to. A password, when you set one, is needed in addition to the link.',
  'about.operatorTitle': 'What the operator of this server can and cannot see',
  'about.operatorCannot':
    'The operator cannot read your files, their names, your notes or the messages of file requests: the server stores them only encrypted, without the key.',
  'about.operatorCan':
    'The operator can see how large each upload is, when it was made and downloaded, how many files it holds, and the network address it came from; on a server with sign-in, also who created it.',
  'about.limitsTitle': 'Limits',
  'about.limits':
    'Uploads and notes are deleted when they expire or when their download or view limit is used up. A lost link cannot be recovered: nobody, not even the operator, can open what it pointed to.',
  'about.docsTitle': 'Documentation',
  'about.docs':
    'The encryption, the API and the server settings are described in the documentation that comes with fileshare: docs/crypto.md, docs/api.md and docs/configuration.md. The command-line client explains itself with fileshare --help.',
  'about.operatorTitleLinks': 'Operator',
  'about.imprint': 'Imprint',
  'about.privacy': 'Privacy statement',
  'about.footerLink': 'About this service',
} as const
