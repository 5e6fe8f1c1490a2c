"""What a topic is about: its subject, aspects, question forms, language and the offline plan built from them."""
