"""Catalogs of the bot's texts (see ``bot.i18n``)."""
