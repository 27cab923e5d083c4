/**
 * French (français). Formal address (vous).
 *
 * Glossary: link = lien; share link = lien de partage; upload (noun) = envoi, to upload =
 * envoyer; download = téléchargement, to download = télécharger; inbox = boîte de réception;
 * inbox link = lien de la boîte de réception; upload link = lien d’envoi; file request =
 * demande de fichiers; note = note; password = mot de passe; expiry = expiration (« Expire le »);
 * view = consultation; sender = expéditeur; requester = demandeur; key = clé; encrypted =
 * chiffré; upload allowance = quota d’envoi; to delete = supprimer; to forget = oublier;
 * operator = exploitant; imprint = mentions légales; privacy statement = politique de confidentialité.
 */
import type { Translation } from '../messages'

export default {
  'app.name': 'fileshare',
  'app.tagline':
    'Fichiers, notes et demandes de fichiers, chiffrés dans votre navigateur avant de le quitter.',
  'app.logoAlt': 'Logo de {title}',
  'app.footer':
    'Chiffré de bout en bout : la clé reste dans le lien et n’atteint jamais le serveur.',
  'app.skipToContent': 'Aller au contenu',
  'app.documentTitle': '{page} · {site}',
  'app.loading': 'Chargement…',
  'app.leaveBusy':
    'Quitter maintenant arrêterait ou perdrait ce qui est en cours sur cette page. Quitter quand même ?',
  'app.loadFailed':
    'Cette page n’a pas pu être chargée. Vérifiez votre connexion et rechargez la page.',
  'app.language': 'Langue',
  'app.configFailed': 'Le serveur est injoignable. Vérifiez votre connexion et rechargez la page.',

  'nav.label': 'Menu principal',
  'nav.menu': 'Menu',
  'nav.upload': 'Envoyer des fichiers',
  'nav.note': 'Note',
  'nav.request': 'Demander des fichiers',
  'nav.history': 'Mes envois',

  'action.copy': 'Copier',
  'action.copied': 'Copié',
  'action.copyFailed': 'La copie a échoué ; sélectionnez le texte et copiez-le vous-même.',
  'action.share': 'Partager',
  'action.copyNamed': 'Copier : {label}',
  'action.shareNamed': 'Partager : {label}',
  'action.shareCopied': 'Le partage n’est pas disponible ici, le lien a donc été copié.',
  'action.cancel': 'Annuler',
  'action.delete': 'Supprimer',
  'action.retry': 'Réessayer',
  'action.close': 'Fermer',
  'action.showPassword': 'Afficher le mot de passe',
  'action.hidePassword': 'Masquer le mot de passe',

  'field.password': 'Mot de passe',
  'field.passwordOptional': 'Mot de passe (facultatif)',
  'field.passwordHint': 'Quiconque ouvre le lien aura aussi besoin de ce mot de passe.',

  'option.downloads': {
    one: '{count} téléchargement',
    many: '{count} de téléchargements',
    other: '{count} téléchargements',
  },
  'option.views': {
    one: '{count} consultation',
    many: '{count} de consultations',
    other: '{count} consultations',
  },
  'option.uploads': { one: '{count} envoi', many: '{count} d’envois', other: '{count} envois' },

  'progress.label': 'Progression',
  'progress.bytes': '{sent} sur {total}',
  'progress.speed': '{rate}/s',
  'progress.eta': '{time} restant',
  'progress.etaUnknown': 'estimation du temps restant…',
  'progress.transport.websocket': 'WebSocket',
  'progress.transport.http': 'HTTP',
  'progress.via': 'Mode de transfert : {transport}',
  'progress.preparing': 'Préparation…',

  'qr.alt': 'Code QR du lien',

  'time.expiresAt': 'Expire le {date}',
  'time.expired': 'Expiré',

  'error.title': 'Une erreur s’est produite',
  'error.notFound.title': 'Introuvable',
  'error.notFound.body':
    'Rien n’est enregistré sous ce lien. Il a peut-être été supprimé, ou le lien n’a pas été copié en entier (y compris la partie après #).',
  'error.gone.title': 'Plus disponible',
  'error.gone.body': 'Ce lien a expiré ou sa limite de téléchargements a été atteinte.',
  'error.gone.expired': 'Ce lien a expiré.',
  'error.gone.usedUp':
    'Ce lien a été ouvert autant de fois qu’il le permettait et ne fonctionne plus.',
  'error.sendNew': 'Envoyer autre chose',
  'error.badLink.title': 'Lien cassé',
  'error.badLink.body':
    'Ce lien est incomplet ou endommagé. Redemandez-le et copiez-le en entier, y compris la partie après #.',
  'error.wrongKey.title': 'La clé du lien ne correspond pas',
  'error.wrongKey.body':
    'La clé du lien n’ouvre pas ce contenu. Vérifiez que vous avez copié le lien en entier, y compris la partie après #.',
  'error.wrongKey.file':
    'La clé du lien n’ouvre pas ce fichier. Vérifiez que vous avez copié le lien en entier, y compris la partie après #.',
  'error.wrongKey.note':
    'La clé du lien n’ouvre pas cette note. Vérifiez que vous avez copié le lien en entier, y compris la partie après #.',
  'error.ownerTokenRefused':
    'Le serveur n’a pas accepté le droit de ce navigateur à le modifier. Il appartient peut-être à un lien envoyé depuis ailleurs.',
  'error.locked.title': 'Trop de mots de passe erronés',
  'error.locked.body': 'Réessayez dans {time}.',
  'error.locked.bodyLater': 'Réessayez plus tard.',
  'error.locked.message': 'Trop de mots de passe erronés. Réessayez dans {time}.',
  'error.locked.messageLater': 'Trop de mots de passe erronés. Réessayez plus tard.',
  'error.wrongPassword': 'Mot de passe incorrect. Réessayez.',
  'error.sourceChanged': '{name} a été modifié pendant son envoi. Envoyez-le à nouveau.',
  'error.sourcesChanged':
    'Les fichiers ont été modifiés pendant leur envoi. Envoyez-les à nouveau.',
  'error.network': 'Le serveur est injoignable. Vérifiez votre connexion et réessayez.',
  'error.disabled': 'Cette fonction est désactivée sur ce serveur.',
  'error.tooLarge': 'C’est plus que ce que le serveur accepte.',
  'error.rateLimited': 'Trop de requêtes. Patientez un instant et réessayez.',
  'error.quotaExceeded':
    'C’est plus que ce qui reste de votre quota d’envoi sur ce serveur. Essayez un envoi plus petit ou attendez le renouvellement du quota.',
  'error.quotaExhausted':
    'Votre quota d’envoi sur ce serveur est épuisé. Il se renouvelle dans {time}.',
  'error.quotaExhaustedLater':
    'Votre quota d’envoi sur ce serveur est épuisé. Réessayez plus tard.',
  'quota.left':
    'Votre quota d’envoi sur ce serveur : il reste {left} sur {limit}. Il se renouvelle dans {time}.',
  'quota.over':
    'C’est plus que les {left} qui restent de votre quota d’envoi sur ce serveur. Il se renouvelle dans {time}.',
  'error.loginRequired': 'Vous devez vous connecter pour cela.',
  'error.generic': 'Une erreur s’est produite : {message}',
  'error.integrity':
    'Les données n’ont pas passé le contrôle d’intégrité : elles sont endommagées ou ont été falsifiées. Rien de leur contenu n’est digne de confiance.',

  'notFound.title': 'Page introuvable',
  'notFound.body': 'Il n’y a pas de page à cette adresse.',
  'notFound.home': 'Aller à la page d’accueil',

  'upload.title': 'Envoyer des fichiers',
  'upload.intro':
    'Les fichiers sont chiffrés dans votre navigateur. Seules les personnes qui ont le lien peuvent les ouvrir.',
  'upload.drop': 'Déposez des fichiers ou des dossiers ici',
  'upload.dropActive': 'Relâchez pour ajouter',
  'upload.chooseFiles': 'Choisir des fichiers',
  'upload.chooseFolder': 'Choisir un dossier',
  'upload.reading': 'Lecture du dossier…',
  'upload.paste': 'Vous pouvez aussi coller des fichiers ou une capture d’écran.',
  'upload.listLabel': 'Fichiers sélectionnés',
  'upload.folderItem': '{name} (dossier)',
  'upload.remove': 'Retirer {name}',
  'upload.total': {
    one: '{count} fichier, {size}',
    many: '{count} de fichiers, {size}',
    other: '{count} fichiers, {size}',
  },
  'upload.zipped': 'Plusieurs fichiers ou un dossier sont envoyés sous forme d’une archive ZIP.',
  'upload.tooLarge': 'Ensemble, ils dépassent les {max} que ce serveur accepte.',
  'upload.tooMany': 'Ce serveur accepte au plus {max} fichiers par envoi.',
  'upload.empty': 'Ajoutez au moins un fichier.',
  'upload.expiry': 'Expire après',
  'upload.downloads': 'Limite de téléchargements',
  'upload.submit': 'Envoyer',
  'upload.preparing': 'Chiffrement…',
  'upload.uploading': 'Envoi en cours…',
  'upload.cancelled': 'Envoi annulé.',
  'upload.failed': 'L’envoi a échoué : {message}',
  'upload.resuming': 'Connexion perdue, reprise…',
  'upload.resumedAt': 'Repris à {size}.',
  'upload.unfinished':
    'Un envoi de {name} n’a pas abouti. Choisissez à nouveau les mêmes fichiers pour le poursuivre.',
  'upload.resume': 'Reprendre l’envoi',
  'upload.discard': 'Commencer un nouvel envoi',
  'upload.resumeMismatch':
    'Ce ne sont pas les fichiers de l’envoi inachevé : un nom, une taille ou une date de modification diffère. Choisissez les mêmes fichiers ou commencez un nouvel envoi.',
  'upload.resumeGone':
    'Le serveur n’a plus l’envoi inachevé, il ne peut donc pas reprendre. Commencez un nouvel envoi.',
  'upload.resumePassword': 'Mot de passe de l’envoi inachevé',
  'upload.resumePasswordHint':
    'Il est protégé par un mot de passe : saisissez-le pour le reprendre.',
  'upload.done.title': 'Vos fichiers sont prêts à être partagés',
  'upload.done.link': 'Lien de partage',
  'upload.done.what': '{names} ({total})',
  'upload.done.expires': 'Expire le {date}',
  'upload.done.downloads': {
    one: '{count} téléchargement restant',
    many: '{count} de téléchargements restants',
    other: '{count} téléchargements restants',
  },
  'upload.done.keepSafe':
    'Toute personne qui a ce lien peut télécharger les fichiers. Il ne peut pas être récupéré.',
  'upload.done.keepSafePassword':
    'Toute personne qui a ce lien et le mot de passe peut télécharger les fichiers. Transmettez le mot de passe par un autre moyen que le lien (par exemple par téléphone ou par une autre messagerie). Le lien ne peut pas être récupéré.',
  'upload.done.delete': 'Supprimer l’envoi',
  'upload.done.confirmDelete':
    'Supprimer cet envoi maintenant ? Le lien cessera de fonctionner pour tout le monde.',
  'upload.done.deleting': 'Suppression…',
  'upload.done.deleted': 'L’envoi a été supprimé.',
  'upload.done.deleteFailed': 'La suppression a échoué : {message}',
  'upload.done.another': 'Envoyer autre chose',

  'media.play': 'Lire ici',
  'media.playLast': 'Lire ici (utilise le dernier téléchargement)',
  'media.counts':
    'La lecture compte comme un téléchargement, comme le téléchargement lui-même ; avancer ou relire ne compte rien de plus.',
  'media.opening': 'Ouverture…',
  'media.failed': 'Ce fichier ne peut pas être lu ici : {message}',
  'media.label': '{name}, déchiffré pendant la lecture',
  'download.title': 'Téléchargement',
  'download.titleLocked': 'Mot de passe requis',
  'download.checking': 'Vérification du lien…',
  'download.lockedIntro': 'Ces fichiers sont protégés par un mot de passe.',
  'download.unlock': 'Déverrouiller',
  'download.unlocking': 'Vérification du mot de passe…',
  'download.filesLabel': 'Fichiers',
  'download.archive': 'Ces fichiers arrivent sous forme d’une archive ZIP.',
  'download.total': {
    one: '{count} fichier, {size}',
    many: '{count} de fichiers, {size}',
    other: '{count} fichiers, {size}',
  },
  'download.expires': 'Expire le {date}',
  'download.left': {
    one: '{count} téléchargement restant',
    many: '{count} de téléchargements restants',
    other: '{count} téléchargements restants',
  },
  'download.counts': 'Le téléchargement compte dans la limite.',
  'download.lastDone': 'C’était le dernier téléchargement ; ce lien ne fonctionne plus.',
  'download.button': 'Télécharger',
  'download.downloading': 'Téléchargement et déchiffrement…',
  'download.done': 'Téléchargement terminé.',
  'download.cancelled': 'Téléchargement annulé.',
  'download.failed': 'Le téléchargement a échoué : {message}',
  'download.noMetadata': 'Les noms des fichiers ne sont pas disponibles.',
  'download.unnamed': 'telechargement',
  'download.archiveName': 'fichiers.zip',
  'download.blobWarning':
    'Ce navigateur ne peut pas enregistrer directement sur le disque ; le fichier est donc d’abord assemblé en mémoire. Les fichiers de plus de {limit} ne peuvent pas être téléchargés ici ; utilisez une version récente de Chrome, Edge ou Firefox.',
  'download.blobTooLarge':
    'Ce fichier est trop volumineux pour être téléchargé dans ce navigateur ({size}, limite {limit}). Utilisez une version récente de Chrome, Edge ou Firefox.',
  'preview.open': 'Ouvrir',
  'preview.openLast': 'Ouvrir (utilise le dernier téléchargement)',
  'preview.opening': 'Ouverture…',
  'preview.countsOnce':
    'Ouvrir affiche le fichier ici ; l’enregistrer ensuite ne compte aucun autre téléchargement.',
  'preview.save': 'Enregistrer',
  'preview.lastOpened':
    'C’était le dernier téléchargement : ce lien ne fonctionne plus. Enregistrez le fichier avant de quitter cette page.',
  'preview.region': 'Aperçu de {name}',
  'preview.copyText': 'Copier le texte',
  'preview.failed': 'Le fichier n’a pas pu être ouvert : {message}',
  'preview.imageBroken':
    'Ce navigateur ne peut pas afficher cette image. Enregistrez-la pour l’ouvrir ailleurs.',
  'preview.notPdf':
    'Ce fichier n’est pas un PDF que ce navigateur peut afficher. Enregistrez-le pour l’ouvrir ailleurs.',
  'download.buttonLast': 'Télécharger (utilise le dernier téléchargement)',
  'inbox.entry.open': 'Ouvrir {name}',
  'inbox.entry.openLast': 'Ouvrir {name} (utilise le dernier téléchargement)',
  'inbox.entry.downloadLast': 'Télécharger {name} (utilise le dernier téléchargement)',
  'inbox.entry.save': 'Enregistrer {name}',

  'history.title': 'Mes envois',
  'history.intro':
    'Tout ce qui a été envoyé depuis ce navigateur. La liste reste sur cet appareil ; oublier un élément ne le supprime pas du serveur.',
  'history.empty': 'Rien n’a encore été envoyé depuis ce navigateur.',
  'history.kind.file': 'Fichiers',
  'history.kind.note': 'Note',
  'history.kind.request': 'Demande de fichiers',
  'history.link': 'Lien',
  'history.refreshing': 'Mise à jour…',
  'history.gone': 'Plus disponible',
  'history.status.unknown': 'État inconnu · Expire le {date}',
  'history.status.file': {
    one: '{count} téléchargement restant · Expire le {date}',
    many: '{count} de téléchargements restants · Expire le {date}',
    other: '{count} téléchargements restants · Expire le {date}',
  },
  'history.status.note': {
    one: '{count} consultation restante · Expire le {date}',
    many: '{count} de consultations restantes · Expire le {date}',
    other: '{count} consultations restantes · Expire le {date}',
  },
  'history.status.request': {
    one: '{count} envoi restant · Expire le {date}',
    many: '{count} d’envois restants · Expire le {date}',
    other: '{count} envois restants · Expire le {date}',
  },
  'history.status.requestClosed': {
    one: '{count} envoi restant · Expire le {date} · Fermée aux nouveaux envois',
    many: '{count} d’envois restants · Expire le {date} · Fermée aux nouveaux envois',
    other: '{count} envois restants · Expire le {date} · Fermée aux nouveaux envois',
  },
  'history.created': 'Envoyé le {date}',
  'history.delete': 'Supprimer {name}',
  'history.forget': 'Oublier {name}',
  'history.forgetButton': 'Oublier',
  'history.forgetConfirm':
    'Oublier « {name} » ? Ce navigateur n’aura alors plus son lien ni le droit de le supprimer. L’envoi lui-même reste sur le serveur jusqu’à son expiration.',
  'history.forgetGoneConfirm': 'Retirer « {name} » de cette liste ?',
  'history.deleteConfirm': 'Supprimer « {name} » du serveur ? Cette action est irréversible.',
  'history.deleted': '« {name} » a été supprimé.',
  'history.deleteFailed': 'La suppression a échoué : {message}',
  'history.noteLabel': 'Note ({type})',
  'history.requestLabel': 'Demande de fichiers',
  'history.unavailable':
    'Ce navigateur ne peut pas conserver d’historique (le stockage est bloqué).',

  'login.signIn': 'Se connecter',
  'login.signOut': 'Se déconnecter',
  'login.signedInAs': 'Connecté en tant que {name}',
  'login.gate.title': 'Connectez-vous pour continuer',
  'login.gate.files':
    'Sur ce serveur, seuls les utilisateurs connectés peuvent envoyer des fichiers.',
  'login.gate.notes': 'Sur ce serveur, seuls les utilisateurs connectés peuvent créer des notes.',
  'login.gate.requests':
    'Sur ce serveur, seuls les utilisateurs connectés peuvent créer des demandes de fichiers.',

  'note.new.title': 'Écrire une note',
  'note.new.intro':
    'Les notes sont chiffrées dans votre navigateur. Le lien ouvre la note un nombre limité de fois, puis elle disparaît.',
  'note.type.label': 'Type de note',
  'note.type.text': 'Texte',
  'note.type.markdown': 'Markdown',
  'note.type.code': 'Code',
  'note.type.password': 'Mots de passe',
  'note.type.sshkey': 'Clé SSH',

  'note.text.label': 'Note',
  'note.markdown.label': 'Markdown',
  'note.markdown.preview': 'Aperçu',
  'note.markdown.previewEmpty': 'L’aperçu s’affiche ici pendant que vous tapez.',
  'note.markdown.rules':
    'Le HTML brut s’affiche comme du texte, les images deviennent des liens, et seuls les liens web et e-mail fonctionnent.',
  'note.code.label': 'Code',
  'note.code.language': 'Coloration',
  'note.code.auto': 'Détection automatique',
  'note.code.plain': 'Texte brut',
  'note.code.detected': 'Détecté : {language}',
  'note.code.preview': 'Aperçu',
  'note.code.languageHint':
    'Le langage n’est pas enregistré avec la note ; il est détecté à la lecture.',

  'note.pw.listLabel': 'Entrées de mots de passe',
  'note.pw.entry': 'Entrée {n}',
  'note.pw.label': 'Libellé',
  'note.pw.username': 'Nom d’utilisateur',
  'note.pw.password': 'Mot de passe',
  'note.lockPassword': 'Mot de passe du lien (facultatif)',
  'note.pw.url': 'Adresse',
  'note.pw.add': 'Ajouter une entrée',
  'note.pw.remove': 'Retirer l’entrée {n}',
  'note.pw.generate': 'Générer un mot de passe pour l’entrée {n}',
  'note.pw.generateShort': 'Générer un mot de passe',
  'note.pw.removeShort': 'Retirer',
  'note.pw.empty': 'Ajoutez au moins un mot de passe.',
  'note.gen.title': 'Générateur de mots de passe',
  'note.gen.length': 'Longueur',
  'note.gen.lower': 'Minuscules (a–z)',
  'note.gen.upper': 'Majuscules (A–Z)',
  'note.gen.digits': 'Chiffres (0–9)',
  'note.gen.symbols': 'Symboles (!#$…)',
  'note.gen.noClass': 'Choisissez au moins un type de caractères.',

  'note.ssh.generate': 'Générer une paire de clés Ed25519',
  'note.ssh.generating': 'Génération…',
  'note.ssh.comment': 'Commentaire de la clé (facultatif)',
  'note.ssh.commentHint': 'Souvent utilisateur@hôte ; il figure après la clé publique.',
  'note.ssh.generated':
    'Une nouvelle paire de clés a été créée dans votre navigateur. Ajoutez la clé publique là où vous vous connectez ; la note contient les deux clés.',
  'note.ssh.savePrivateKey': 'Enregistrer la clé privée dans un fichier',
  'note.ssh.unsupported':
    'Ce navigateur ne peut pas générer de clés Ed25519. Collez plutôt une clé.',
  'note.ssh.label': 'Clés SSH',
  'note.ssh.hint':
    'Générez une paire ci-dessus, ou collez une clé privée, une clé publique ou les deux.',
  'note.ssh.publicKey': 'Clé publique',
  'note.ssh.privateKey': 'Clé privée',
  'note.ssh.otherText': 'Autre texte',
  'note.ssh.fingerprint': 'Empreinte {fingerprint}',

  'note.views': 'Limite de consultations',
  'note.expiry': 'Expire après',
  'note.size': '{used} sur {max}',
  'note.sizeLimit': 'Jusqu’à {max}',
  'note.tooLarge': 'La note dépasse les {max} que ce serveur accepte.',
  'note.empty': 'Écrivez d’abord quelque chose.',
  'note.submit': 'Créer la note',
  'note.creating': 'Chiffrement…',
  'note.failed': 'La note n’a pas pu être créée : {message}',

  'note.done.title': 'Votre note est prête à être partagée',
  'note.done.link': 'Lien de la note',
  'note.done.views': {
    one: 'Peut être ouverte {count} fois',
    many: 'Peut être ouverte {count} de fois',
    other: 'Peut être ouverte {count} fois',
  },
  'note.done.expires': 'Expire le {date}',
  'note.done.keepSafe':
    'Toute personne qui a ce lien peut lire la note. Le lien ne peut pas être récupéré.',
  'note.done.keepSafePassword':
    'Toute personne qui a ce lien et le mot de passe peut lire la note. Transmettez le mot de passe par un autre moyen que le lien (par exemple par téléphone ou par une autre messagerie). Le lien ne peut pas être récupéré.',
  'note.done.delete': 'Supprimer la note',
  'note.done.confirmDelete':
    'Supprimer cette note maintenant ? Le lien cessera de fonctionner pour tout le monde.',
  'note.done.deleting': 'Suppression…',
  'note.done.deleted': 'La note a été supprimée.',
  'note.done.deleteFailed': 'La suppression a échoué : {message}',
  'note.done.another': 'Écrire une autre note',

  'note.view.title': 'Note',
  'note.view.titleLocked': 'Mot de passe requis',
  'note.view.checking': 'Vérification du lien…',
  'note.view.lockedIntro': 'Cette note est protégée par un mot de passe.',
  'note.view.unlock': 'Déverrouiller',
  'note.view.unlocking': 'Vérification du mot de passe…',
  'note.view.unlockNoView': 'La vérification du mot de passe ne compte pas comme consultation.',
  'note.view.kind': 'Type : {type}',
  'note.view.viewsLeft': {
    one: '{count} consultation restante',
    many: '{count} de consultations restantes',
    other: '{count} consultations restantes',
  },
  'note.view.expires': 'Expire le {date}',
  'note.view.consumeWarning':
    'Ouvrir la note utilise une de ses consultations. Après la dernière, la note disparaît définitivement.',
  'note.view.reveal': {
    one: 'Afficher (utilise 1 des {count} consultations)',
    many: 'Afficher (utilise 1 des {count} de consultations)',
    other: 'Afficher (utilise 1 des {count} consultations)',
  },
  'note.view.revealLast': 'Afficher (utilise la dernière consultation)',
  'note.view.revealing': 'Ouverture…',
  'note.view.lastView':
    'C’était la dernière consultation : la note est maintenant supprimée du serveur. Copiez ce dont vous avez besoin avant de quitter cette page.',
  'note.view.copyAll': 'Copier toute la note',
  'note.view.copyUsername': 'Copier le nom d’utilisateur de {name}',
  'note.view.copyPassword': 'Copier le mot de passe de {name}',
  'note.view.copyPublicKey': 'Copier la clé publique {n}',
  'note.view.copyPrivateKey': 'Copier la clé privée {n}',
  'note.view.showPassword': 'Afficher le mot de passe de {name}',
  'note.view.hidePassword': 'Masquer le mot de passe de {name}',
  'note.view.hidden': '••••••••',
  'note.view.entries': 'Mots de passe',
  'note.view.noEntries': 'Cette liste de mots de passe est vide.',

  'request.new.title': 'Demander des fichiers',
  'request.new.intro':
    'Demandez à d’autres personnes de vous envoyer des fichiers. Ils sont chiffrés dans le navigateur de l’expéditeur, et seul votre lien de boîte de réception les ouvre.',
  'request.message': 'Message aux expéditeurs',
  'request.messageHint':
    'Affiché sur la page d’envoi, par exemple ce qu’il faut envoyer. Il est chiffré lui aussi.',
  'request.messageTooLong': 'Le message est trop long.',
  'request.acceptsNote': 'Les expéditeurs peuvent ajouter une note',
  'request.expiry': 'Ouverte pendant',
  'request.uploads': 'Nombre d’envois',
  'request.maxSize': 'Envoi maximal',
  'request.downloads': 'Téléchargements par envoi',
  'request.password': 'Mot de passe de la boîte de réception (facultatif)',
  'request.passwordRequired': 'Mot de passe de la boîte de réception (exigé par ce serveur)',
  'request.passwordHint':
    'Ouvrir le lien de la boîte de réception demandera aussi ce mot de passe.',
  'request.passwordMissing': 'Ce serveur exige un mot de passe pour la boîte de réception.',
  'request.limit': 'Encore {count} nouvelles demandes sur {limit} aujourd’hui.',
  'request.limitReached':
    'Vous avez utilisé les {limit} demandes d’aujourd’hui. D’autres seront possibles à partir du {date}.',
  'request.submit': 'Créer la demande',
  'request.notify.title': 'Me prévenir quand un fichier arrive (facultatif)',
  'request.notify.email': 'Adresse e-mail',
  'request.notify.webhook': 'URL de webhook (https)',
  'request.notify.privacy':
    'Le serveur apprend cette adresse ou cette URL pour envoyer l’avis. L’avis dit seulement qu’un fichier est arrivé, quand, et sa taille approximative : jamais un nom de fichier ni un lien.',
  'request.notify.secret': 'Clé de signature du webhook (affichée seulement maintenant)',
  'request.notify.secretHint':
    'Chaque webhook porte X-Fileshare-Signature: sha256= suivi du HMAC-SHA256 de son corps sous cette clé.',
  'request.creating': 'Création…',
  'request.failed': 'La demande n’a pas pu être créée : {message}',

  'request.done.title': 'Votre demande de fichiers est prête',
  'request.done.uploadLink': 'Lien d’envoi (pour les expéditeurs)',
  'request.done.uploadHint':
    'Avec ce lien, on peut vous envoyer des fichiers. On ne voit pas ce que les autres ont envoyé.',
  'request.done.inboxLink': 'Lien de la boîte de réception (le vôtre)',
  'request.done.inboxHint':
    'Toute personne qui a ce lien peut lire, télécharger et supprimer ce qui a été envoyé. Gardez-le privé : il ne peut pas être récupéré, enregistrez-le donc maintenant.',
  'request.done.inboxHintPassword':
    'Toute personne qui a ce lien et le mot de passe que vous avez choisi peut lire, télécharger et supprimer ce qui a été envoyé. Gardez-le privé : il ne peut pas être récupéré, enregistrez-le donc maintenant.',
  'request.done.uploads': {
    one: 'Accepte {count} envoi',
    many: 'Accepte {count} d’envois',
    other: 'Accepte {count} envois',
  },
  'request.done.uploadQr': 'Code QR du lien d’envoi',
  'request.done.closes': 'Accepte des envois jusqu’au {date}',
  'request.done.openInbox': 'Ouvrir la boîte de réception',
  'request.done.another': 'Créer une autre demande',
  'request.historyLabel': 'Demande de fichiers : {message}',

  'request.send.title': 'Envoyer des fichiers',
  'request.send.checking': 'Ouverture de la demande…',
  'request.send.intro':
    'Quelqu’un vous demande des fichiers. Ils sont chiffrés avant de quitter votre navigateur ; seul le demandeur peut les ouvrir.',
  'request.send.message': 'Message du demandeur',
  'request.send.noMessage': 'Le demandeur n’a laissé aucun message.',
  'request.send.closes': 'Ouverte jusqu’au {date}',
  'request.send.left': {
    one: '{count} envoi restant',
    many: '{count} d’envois restants',
    other: '{count} envois restants',
  },
  'request.send.maxSize': 'Jusqu’à {size} par envoi',
  'request.send.note': 'Note (facultative)',
  'request.send.noteHint': 'Envoyée chiffrée avec vos fichiers.',
  'request.send.noteTooLong': 'La note est trop longue ({size} au maximum).',
  'request.send.noRoomForNote':
    'Il ne reste qu’un envoi : impossible d’envoyer à la fois des fichiers et une note. Envoyez l’un ou l’autre.',
  'request.send.heldByUnfinished':
    'Cette demande n’a plus de place pour un autre envoi tant que votre envoi inachevé de {name} occupe la sienne. Reprenez-le avec les mêmes fichiers ou commencez un nouvel envoi, qui y met fin.',
  'request.send.empty': 'Ajoutez d’abord des fichiers.',
  'request.send.emptyOrNote': 'Ajoutez d’abord des fichiers ou écrivez une note.',
  'request.send.tooLarge': 'Ensemble, ils dépassent les {max} que cette demande accepte.',
  'request.send.tooMany': 'Cette demande accepte au plus {max} fichiers par envoi.',
  'request.send.submit': 'Envoyer',
  'request.send.sending': 'Chiffrement et envoi…',
  'request.send.sendingNote': 'Envoi de la note…',
  'request.send.cancelled': 'L’envoi a été annulé. Rien n’a été conservé.',
  'request.send.failed': 'L’envoi a échoué : {message}',
  'request.send.done.title': 'Envoyé',
  'request.send.done.body':
    'Ce que vous avez envoyé a été chiffré et livré. Seul le demandeur peut l’ouvrir.',
  'request.send.done.another': 'Envoyer d’autres fichiers',
  'request.send.closed.title': 'Cette demande est fermée',
  'request.send.closed.body':
    'Le demandeur l’a fermée ou elle a expiré ; elle n’accepte donc plus de fichiers. Demandez-lui un nouveau lien.',
  'request.send.full.title': 'Cette demande est complète',
  'request.send.full.body':
    'Elle a reçu tous les envois qu’elle accepte. Demandez un nouveau lien au demandeur.',

  'inbox.title': 'Boîte de réception',
  'inbox.titleLocked': 'Mot de passe requis',
  'inbox.checking': 'Ouverture de la boîte de réception…',
  'inbox.lockedIntro': 'Cette boîte de réception est protégée par un mot de passe.',
  'inbox.unlock': 'Déverrouiller',
  'inbox.unlocking': 'Vérification du mot de passe…',
  'inbox.message': 'Votre message aux expéditeurs',
  'inbox.noMessage': 'Aucun message.',
  'inbox.open': 'Accepte des envois jusqu’au {date}',
  'inbox.closed': 'Fermée : elle n’accepte plus de nouveaux envois.',
  'inbox.expired': 'Expirée le {date} : elle n’accepte plus de nouveaux envois.',
  'inbox.used': {
    one: 'Envois utilisés : {used} sur {count}',
    many: 'Envois utilisés : {used} sur {count}',
    other: 'Envois utilisés : {used} sur {count}',
  },
  'inbox.uploadLink': 'Lien d’envoi (pour les expéditeurs)',
  'inbox.listTitle': 'Reçus',
  'inbox.empty': 'Rien n’est encore arrivé.',
  'inbox.refresh': 'Actualiser',
  'inbox.downloadAll': 'Télécharger les {count} dans un dossier',
  'inbox.downloadAllDone': {
    one: '{count} fichier sur {total} enregistré dans le dossier.',
    many: '{count} de fichiers sur {total} enregistrés dans le dossier.',
    other: '{count} fichiers sur {total} enregistrés dans le dossier.',
  },
  'inbox.downloadAllFailed': 'Le dossier n’a pas pu être ouvert : {message}',
  'inbox.unreadable': {
    one: '{count} envoi n’a pas pu être déchiffré. Un expéditeur a peut-être envoyé des données endommagées.',
    many: '{count} d’envois n’ont pas pu être déchiffrés. Un expéditeur a peut-être envoyé des données endommagées.',
    other:
      '{count} envois n’ont pas pu être déchiffrés. Un expéditeur a peut-être envoyé des données endommagées.',
  },
  'inbox.entry.archiveSummary': {
    one: 'Archive ZIP de {count} fichier, {size}',
    many: 'Archive ZIP de {count} de fichiers, {size}',
    other: 'Archive ZIP de {count} fichiers, {size}',
  },
  'inbox.entry.fileSummary': 'Un fichier, {size}',
  'inbox.entry.archiveName': 'fichiers-{date}.zip',
  'inbox.entry.files': {
    one: '{count} fichier',
    many: '{count} de fichiers',
    other: '{count} fichiers',
  },
  'inbox.entry.received': 'Reçu le {date}',
  'inbox.entry.kept': 'Conservé jusqu’au {date}',
  'inbox.entry.left': {
    one: '{count} téléchargement restant',
    many: '{count} de téléchargements restants',
    other: '{count} téléchargements restants',
  },
  'inbox.entry.download': 'Télécharger {name}',
  'inbox.entry.downloading': 'Téléchargement de {name}…',
  'inbox.entry.downloaded': '{name} a été enregistré.',
  'inbox.entry.downloadFailed': 'Le téléchargement de {name} a échoué : {message}',
  'inbox.entry.delete': 'Supprimer {name}',
  'inbox.entry.deleteConfirm': 'Supprimer {name} définitivement ?',
  'inbox.entry.deleted': '{name} a été supprimé.',
  'inbox.entry.deleteFailed': 'La suppression de {name} a échoué : {message}',
  'inbox.note.title': 'Note d’un expéditeur',
  'inbox.note.withFiles': 'La note de l’expéditeur',
  'inbox.note.read': 'Afficher la note',
  'inbox.entry.deleteWithNoteConfirm':
    'Supprimer définitivement {name} et la note qui l’accompagnait ?',
  'inbox.note.reading': 'Déchiffrement de la note…',
  'inbox.note.copy': 'Copier la note',
  'inbox.confirmYes': 'Oui, supprimer',
  'inbox.close': 'Fermer la demande',
  'inbox.closeConfirm':
    'Fermer la demande ? Les expéditeurs ne pourront plus rien envoyer ; ce qui est arrivé reste.',
  'inbox.closeYes': 'Oui, la fermer',
  'inbox.closedDone': 'La demande est fermée.',
  'inbox.closeFailed': 'La fermeture a échoué : {message}',
  'inbox.delete': 'Supprimer la demande',
  'inbox.deleteConfirm': 'Supprimer définitivement la demande et tout son contenu ?',
  'inbox.deleted': 'La demande et tout son contenu ont été supprimés.',
  'inbox.deleteFailed': 'La suppression a échoué : {message}',
  'inbox.manage': 'Gérer la demande',
  'tokens.title': 'Jetons d’API',
  'tokens.nav': 'Jetons d’API',
  'tokens.intro':
    'Les scripts et la ligne de commande peuvent créer avec un jeton d’API personnel au lieu de se connecter. Un jeton peut créer ce que vous lui permettez, jusqu’à son expiration ou sa révocation.',
  'tokens.signIn': 'Connectez-vous pour gérer vos jetons d’API.',
  'tokens.unavailable':
    'Ce serveur ne demande aucune connexion pour créer quoi que ce soit ; il n’a donc pas de jetons d’API.',
  'tokens.form.title': 'Nouveau jeton',
  'tokens.form.name': 'Nom',
  'tokens.form.nameHint': 'À quoi sert le jeton, par exemple « sauvegarde nocturne ».',
  'tokens.form.scopes': 'Peut créer',
  'tokens.form.expiry': 'Expire après',
  'tokens.form.create': 'Créer le jeton',
  'tokens.form.creating': 'Création…',
  'tokens.form.nameMissing': 'Donnez au jeton un nom de 100 caractères au plus.',
  'tokens.form.scopesMissing': 'Choisissez au moins une chose que le jeton peut créer.',
  'tokens.scope.files': 'Fichiers',
  'tokens.scope.notes': 'Notes',
  'tokens.scope.requests': 'Demandes de fichiers',
  'tokens.created.title': 'Votre nouveau jeton',
  'tokens.created.label': 'Jeton',
  'tokens.created.warning':
    'Copiez-le maintenant : il ne sera plus affiché. Quiconque le détient peut créer en votre nom jusqu’à son expiration ou sa révocation.',
  'tokens.created.cli':
    'En ligne de commande, lancez « fileshare login --token - » et collez-le, ou définissez FILESHARE_TOKEN.',
  'tokens.created.done': 'Terminé',
  'tokens.list.title': 'Vos jetons',
  'tokens.list.empty': 'Vous n’avez aucun jeton d’API.',
  'tokens.list.scopes': 'Peut créer',
  'tokens.list.created': 'Créé',
  'tokens.list.lastUsed': 'Dernière utilisation',
  'tokens.list.expires': 'Expire',
  'tokens.list.never': 'Jamais',
  'tokens.revoke': 'Révoquer',
  'tokens.revoking': 'Révocation…',
  'tokens.revokeLabel': 'Révoquer {name}',

  'about.title': 'À propos',
  'about.intro':
    '{site} envoie des fichiers, des notes et des demandes de fichiers chiffrés de bout en bout : votre navigateur les chiffre avant qu’ils ne le quittent, et seules les personnes qui ont le lien peuvent les déchiffrer.',
  'about.howTitle': 'Comment ça marche',
  'about.how':
    'Chaque lien porte sa clé après le signe #. Les navigateurs n’envoient jamais cette partie à un serveur : la clé reste donc chez vous et chez les personnes à qui vous donnez le lien. Un mot de passe, si vous en définissez un, est nécessaire en plus du lien.',
  'about.operatorTitle': 'Ce que l’exploitant de ce serveur peut voir et ne peut pas voir',
  'about.operatorCannot':
    'L’exploitant ne peut lire ni vos fichiers, ni leurs noms, ni vos notes, ni les messages des demandes de fichiers : le serveur ne les stocke que chiffrés, sans la clé.',
  'about.operatorCan':
    'L’exploitant peut voir la taille de chaque envoi, quand il a été fait et téléchargé, combien de fichiers il contient et l’adresse réseau d’où il provient ; sur un serveur avec connexion, aussi qui l’a créé.',
  'about.limitsTitle': 'Limites',
  'about.limits':
    'Les envois et les notes sont supprimés à leur expiration ou quand leur limite de téléchargements ou de consultations est atteinte. Un lien perdu ne peut pas être récupéré : personne, pas même l’exploitant, ne peut ouvrir ce vers quoi il pointait.',
  'about.docsTitle': 'Documentation',
  'about.docs':
    'Le chiffrement, l’API et les réglages du serveur sont décrits dans la documentation fournie avec fileshare : docs/crypto.md, docs/api.md et docs/configuration.md. Le client en ligne de commande s’explique lui-même avec fileshare --help.',
  'about.operatorTitleLinks': 'Exploitant',
  'about.imprint': 'Mentions légales',
  'about.privacy': 'Politique de confidentialité',
  'about.footerLink': 'À propos de ce service',
  'error.removed.title': 'Supprimé par l’exploitant',
  'error.removed.body': 'L’exploitant de ce service a supprimé ce vers quoi pointait ce lien.',
  'error.removed.reason': 'Motif de l’exploitant : {reason}',
  'report.link': 'Signaler',
  'report.title': 'Signaler à l’exploitant',
  'report.intro':
    'Indiquez à l’exploitant de ce service ce qui pose problème dans ce contenu, par exemple qu’il est illégal ou abusif.',
  'report.reason': 'Motif',
  'report.includeKey': 'Joindre la clé de ce lien',
  'report.keyNote':
    'Sans la clé, l’exploitant ne peut pas voir le contenu : il est chiffré et seul ce lien l’ouvre.',
  'report.send': 'Envoyer le signalement',
  'report.sending': 'Envoi du signalement …',
  'report.sent': 'Merci. Votre signalement a été envoyé à l’exploitant.',
  'report.failed': 'Le signalement n’a pas pu être envoyé. {message}',

  'archive.title': 'Contenu de l’archive',
  'archive.intro':
    'Voyez les fichiers que contient cette archive, puis affichez ou enregistrez des fichiers un par un sans tout télécharger.',
  'archive.counts':
    'Ouvrir l’archive compte comme un téléchargement ; afficher et enregistrer ses fichiers ensuite ne compte plus pendant quelques heures.',
  'archive.open': 'Ouvrir l’archive',
  'archive.openLast': 'Ouvrir l’archive (utilise le dernier téléchargement)',
  'archive.openAgain': 'Ouvrir l’archive à nouveau',
  'archive.opening': 'Lecture de la liste des fichiers…',
  'archive.failed': 'L’archive n’a pas pu être lue. {message}',
  'archive.until':
    'Vous pouvez afficher et enregistrer ses fichiers sans compter d’autre téléchargement jusqu’au {date}.',
  'archive.lapsed':
    'Le délai pour afficher et enregistrer des fichiers de cette archive est écoulé. L’ouvrir à nouveau compte un autre téléchargement.',
  'archive.listLabel': 'Fichiers de l’archive',
  'archive.view': 'Afficher',
  'archive.viewNamed': 'Afficher {name}',
  'archive.save': 'Enregistrer',
  'archive.saveNamed': 'Enregistrer {name}',
  'archive.fetching': 'Récupération du fichier…',
  'archive.saved': '{name} enregistré.',
  'archive.saveCancelled': 'L’enregistrement de {name} a été annulé.',
  'archive.entryFailed': '{name} n’a pas pu être lu. {message}',
  'archive.unsupported': 'Illisible ici',
} satisfies Translation<'one' | 'many' | 'other'>
