"""What simulated creators say, per niche: tech, finance, gaming, education, comedy.

Same shape as niches_lifestyle (see its docstring).
"""

KNOWLEDGE: dict[str, dict[str, tuple[str, ...]]] = {
    "tech.gadgets": {
        "bio": ("Gadget reviews without the hype", "Unboxing every smartphone so you don't have to", "Laptop and headphone nerd"),
        "topics": ("budget smartphone unboxing", "noise cancelling headphone shootout", "best laptop for students", "smartwatch after one month", "android vs iphone camera test", "earbud battery test", "tablet for note taking", "desk gadget setup"),
        "tips": ("Check the battery after a week, not a day.", "Most smartphone cameras are good now.", "Buy last year's laptop on sale.", "Try headphones with your own music.", "Turn off the always-on display.", "Unboxing tells you nothing about durability."),
        "tags": ("tech", "gadgets", "unboxing", "smartphone"),
        "stems": ("tech", "gadget", "unbox", "geek"),
    },
    "tech.programming": {
        "bio": ("Software developer teaching Python and JavaScript", "Coding tutorials for self-taught programmers", "Backend developer | debugging live"),
        "topics": ("python list comprehensions", "javascript promises in one minute", "debugging a production bug", "frontend portfolio project", "coding interview question", "backend api in python", "programming habits that scale", "git mistakes every developer makes"),
        "tips": ("Read the error message twice.", "Write the test before the fix.", "Name variables for the reader.", "Commit small and often.", "Print debugging is still debugging.", "Learn one programming language deeply first."),
        "tags": ("coding", "programming", "python", "developer"),
        "stems": ("code", "coder", "dev", "python", "program", "hack"),
    },
    "tech.ai": {
        "bio": ("AI tools explained for normal people", "Machine learning engineer | LLM experiments", "Automation with ChatGPT and friends"),
        "topics": ("chatgpt prompt for emails", "llm agents explained", "ai tools for students", "machine learning in one minute", "automation that saves an hour", "neural network from scratch", "ai image generator test", "chatbot for a small business"),
        "tips": ("Give the AI an example of the answer.", "Ask the chatbot to check its own work.", "Small automation wins add up.", "Never paste secrets into a prompt.", "A neural network is just many small sums.", "Test the AI on questions you know."),
        "tags": ("ai", "chatgpt", "machinelearning", "artificialintelligence"),
        "stems": ("ai", "gpt", "neural", "robot", "prompt"),
    },
    "finance.investing": {
        "bio": ("Index fund investing, boring and rich", "Dividend portfolio updates every month", "Ex-banker explaining the stock market"),
        "topics": ("index fund vs stock picking", "dividend portfolio update", "compound interest explained", "first brokerage account", "etf portfolio for beginners", "s&p 500 at all time highs", "investing 100 dollars a month", "what a stock market crash means"),
        "tips": ("Time in the market beats timing it.", "Keep fees under a quarter percent.", "Compound interest needs decades.", "An index fund owns hundreds of companies.", "Never invest money you need this year.", "Rebalance your portfolio once a year."),
        "tags": ("investing", "stockmarket", "etf", "dividends"),
        "stems": ("invest", "stock", "dividend", "wealth"),
    },
    "finance.budgeting": {
        "bio": ("Paid off debt, now teaching budgeting", "Cash stuffing and sinking fund updates", "Frugal living on one paycheck"),
        "topics": ("cash stuffing my paycheck", "zero-based budget", "paying off debt fast", "emergency fund in 6 months", "frugal grocery haul", "sinking fund setup", "budget for irregular income", "no spend month results"),
        "tips": ("Give every dollar a job.", "Build a small emergency fund first.", "Pay the highest interest debt first.", "Track spending for one honest month.", "Frugal is a choice, not a punishment.", "Automate savings on payday."),
        "tags": ("budgeting", "budget", "debtfree", "savings"),
        "stems": ("budget", "frugal", "debt", "cash", "saver"),
    },
    "finance.crypto": {
        "bio": ("Crypto since 2017 | bitcoin and ethereum", "Blockchain explained without the shilling", "DeFi experiments, not financial advice"),
        "topics": ("bitcoin halving explained", "ethereum gas fees", "defi yield risks", "cold wallet setup", "altcoin season signals", "blockchain in one minute", "crypto tax basics", "btc vs eth long term"),
        "tips": ("Not your keys, not your crypto.", "Never share a seed phrase.", "Most altcoins go to zero.", "Bitcoin is volatile, size positions small.", "Check gas fees before any transaction.", "Hodl only what you can forget."),
        "tags": ("crypto", "bitcoin", "ethereum", "blockchain"),
        "stems": ("crypto", "bitcoin", "btc", "eth", "chain", "hodl"),
    },
    "gaming.fps": {
        "bio": ("Valorant coach | aim and clutch tips", "Warzone loadouts and sniper plays", "Counter Strike veteran, FPS streamer"),
        "topics": ("valorant aim routine", "warzone best loadout", "1v4 clutch breakdown", "sniper flick tips", "counter strike smokes", "call of duty ranked", "headshot crosshair placement", "fps settings that matter"),
        "tips": ("Keep your crosshair at head height.", "Stop moving before you shoot.", "Warm up aim for ten minutes.", "Play the clutch slowly.", "Sniper shots need patience.", "Turn down your sensitivity."),
        "tags": ("valorant", "warzone", "fps", "gaming"),
        "stems": ("aim", "frag", "clutch", "sniper", "valo"),
    },
    "gaming.retro": {
        "bio": ("Retro gaming collector | Nintendo forever", "SNES, N64 and Game Boy restorations", "Arcade cabinets and Sega memories"),
        "topics": ("game boy restoration", "snes hidden gems", "n64 cartridge cleaning", "arcade cabinet build", "retro console collection", "sega genesis classics", "emulator handheld review", "nintendo games worth collecting"),
        "tips": ("Clean cartridge pins with alcohol.", "Buy retro games loose to save money.", "Old consoles need new capacitors.", "Arcade sticks feel better than pads.", "Keep a Game Boy out of the sun.", "Emulators are great for testing."),
        "tags": ("retrogaming", "nintendo", "retro", "gaming"),
        "stems": ("retro", "pixel", "arcade", "cartridge", "8bit"),
    },
    "gaming.speedrunning": {
        "bio": ("Speedrunner | any% world record hunter", "Speedrunning explained for normal gamers", "Chasing a personal best every night"),
        "topics": ("any% world record attempt", "the glitch that saves a minute", "speedrun route explained", "personal best reaction", "speedrunning a childhood game", "frame perfect trick", "world record history", "speedrunner setup tour"),
        "tips": ("Practice the hardest trick first.", "A safe route beats a risky one.", "Reset early when the run is dead.", "Every glitch has a setup.", "Personal best runs feel calm.", "Split the run into small sections."),
        "tags": ("speedrun", "speedrunning", "worldrecord", "gaming"),
        "stems": ("speed", "speedrun", "wr", "frame", "glitch"),
    },
    "education.languages": {
        "bio": ("Spanish and French teacher | learn with me", "Polyglot sharing vocabulary every day", "Japanese grammar made simple"),
        "topics": ("spanish ñ pronunciation", "french café vocabulary", "japanese particles explained", "verbs you use every day", "grammar mistakes natives make", "how I became fluent", "language learning routine", "false friends in spanish"),
        "tips": ("Say new vocabulary out loud.", "Learn verbs in short sentences.", "Talk to yourself in the new language.", "Grammar sticks after you use it.", "Copy the pronunciation of one speaker.", "Fluent means comfortable, not perfect."),
        "tags": ("languagelearning", "spanish", "french", "polyglot"),
        "stems": ("lingo", "polyglot", "spanish", "french", "idioma", "lang"),
    },
    "education.science": {
        "bio": ("Physics teacher making science fun", "Chemistry experiments you can do at home", "Astronomy and biology facts daily"),
        "topics": ("physics of a spinning top", "kitchen chemistry experiment", "biology of sleep", "astronomy this month", "why the sky is blue", "planet sizes compared", "molecule models explained", "science myths debunked"),
        "tips": ("Every experiment starts with a question.", "Light scatters more at blue wavelengths.", "Chemistry is cooking with rules.", "The planet Jupiter could hold many Earths.", "Biology is mostly chemistry in motion.", "A good scientist changes their mind."),
        "tags": ("science", "physics", "chemistry", "sciencetok"),
        "stems": ("science", "physics", "chem", "astro", "lab", "nerd"),
    },
    "education.history": {
        "bio": ("History teacher | ancient and medieval stories", "The weird side of history", "Roman empire facts every day"),
        "topics": ("roman empire daily life", "medieval food", "ancient egypt pharaoh", "forgotten dynasty", "history of the fork", "the century that changed maps", "historical myths", "ancient greek inventions"),
        "tips": ("Romans ate lying down at dinner.", "Medieval people drank weak beer, not water.", "Pharaohs were often buried with pets.", "Every empire fell for many reasons.", "History is written by the survivors.", "A century is shorter than it sounds."),
        "tags": ("history", "historytok", "ancient", "romanempire"),
        "stems": ("history", "histor", "ancient", "roman", "empire"),
    },
    "comedy.sketches": {
        "bio": ("Sketch comedy about roommates and bosses", "I play every character | new skit daily", "Parody and impression videos"),
        "topics": ("roommate who never pays rent", "sketch about group chats", "boss impression", "parody of cooking shows", "skit: first day at work", "when the wifi dies sketch", "every teacher ever skit", "parody ad for water"),
        "tips": ("Every skit needs a clear twist.", "Roommate sketch comedy never gets old.", "Keep the parody shorter than the original.", "Impressions work best with one detail.", "End the sketch on the biggest laugh.", "Write the punchline first."),
        "tags": ("comedy", "skit", "sketchcomedy", "funny"),
        "stems": ("funny", "lol", "skit", "comedy", "jokes", "laugh"),
    },
    "comedy.pranks": {
        "bio": ("Harmless pranks on my family", "Prank war with my brother, day 200", "Hidden camera pranks in public"),
        "topics": ("prank war day 14", "fake spider scare", "hidden camera prank at the mall", "pranked my dad again", "piñata prank", "prank on my roommate", "scare prank compilation", "revenge prank"),
        "tips": ("A good prank makes everyone laugh.", "Keep pranks harmless and kind.", "The scare is funnier when it is quick.", "Always reveal the hidden camera.", "Plan the prank reveal first.", "Never prank someone who is driving."),
        "tags": ("prank", "pranks", "funny", "comedy"),
        "stems": ("prank", "gotcha", "trick"),
    },
}  # fmt: skip
