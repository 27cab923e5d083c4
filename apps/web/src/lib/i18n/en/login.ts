/** Text of the sign-in control, the session display and the login gate. */
export const login = {
  'login.signIn': 'Sign in',
  'login.signOut': 'Sign out',
  'login.signedInAs': 'Signed in as {name}',
  'login.gate.title': 'Sign in to continue',
  'login.gate.files': 'This server lets only signed-in users send files.',
  'login.gate.notes': 'This server lets only signed-in users create notes.',
  'login.gate.requests': 'This server lets only signed-in users create file requests.',
} as const
