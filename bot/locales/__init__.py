"""The bot's texts as gettext catalogs, one ``<lang>.po`` per language (see ``bot.i18n``)."""
