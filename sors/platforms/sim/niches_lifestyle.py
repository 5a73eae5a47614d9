"""What simulated creators say, per niche: fitness, food, beauty, fashion, travel, pets.

One entry per leaf of the taxonomy (sors.platforms.taxonomy). `topics` are noun phrases that
captions and scripts are built around, `tips` are short spoken/slide sentences, `tags` are
hashtags without '#', `stems` are words that, found inside a handle, pick this niche (so a
handle like "yoga.with.mia" gets a yoga account). Words are chosen to carry the taxonomy's
keywords, so keyword search and the classifier work on the simulated world; a few accented
words keep accent-insensitive search honest.
"""

LIFESTYLE: dict[str, dict[str, tuple[str, ...]]] = {
    "fitness.yoga": {
        "bio": ("Yoga teacher sharing daily vinyasa flows", "Pilates + yoga for stiff backs and busy people", "Mobility, stretching and slow yoga every morning"),
        "topics": ("morning yoga flow", "10-minute vinyasa sequence", "yoga for lower back pain", "pilates core routine", "hip mobility stretching", "sun salutation for beginners", "bedtime yoga stretch", "wall pilates challenge"),
        "tips": ("Breathe in as you lift your arms.", "Keep a soft bend in your knees.", "Hold each yoga pose for five breaths.", "Press the floor away in downward dog.", "Stretching works best when you are warm.", "Pilates is about control, not speed.", "Move slowly and keep your core on."),
        "tags": ("yoga", "pilates", "mobility", "yogaeveryday"),
        "stems": ("yoga", "yogi", "pilates", "vinyasa", "stretch"),
    },
    "fitness.strength": {
        "bio": ("Powerlifting coach. Squat, bench, deadlift.", "Lifting heavy since 2015 | hypertrophy programs", "Barbell strength training for normal people"),
        "topics": ("deadlift form check", "12-week hypertrophy program", "bench press plateau fix", "squat depth cues", "legday routine", "dumbbell-only push day", "powerlifting meet prep", "progressive overload explained simply"),
        "tips": ("Brace your core before every rep.", "Push through the whole foot on the squat.", "Keep the barbell close on the deadlift.", "Add weight only when form stays clean.", "Rest two minutes between heavy sets.", "Film your lifting from the side."),
        "tags": ("powerlifting", "deadlift", "legday", "weightlifting"),
        "stems": ("lift", "strong", "barbell", "squat", "deadlift", "gains", "gym"),
    },
    "fitness.running": {
        "bio": ("Marathon runner chasing a sub-3", "Running coach | 5k to half marathon plans", "Trail runner and long run enthusiast"),
        "topics": ("first marathon training plan", "easy long run pacing", "5k speed workout", "half marathon race day", "trail run gear", "running in the cold", "10k personal record attempt", "runner strength routine"),
        "tips": ("Most of your running should feel easy.", "Increase weekly distance slowly.", "Shorten your stride on hills.", "Fuel every 45 minutes on a long run.", "Rest days make you a faster runner.", "Warm up before any 5k effort."),
        "tags": ("running", "marathon", "runner", "runtok"),
        "stems": ("run", "marathon", "miles", "pace"),
    },
    "fitness.home_workouts": {
        "bio": ("No equipment home workout plans", "HIIT and bodyweight training in your living room", "Home workouts for busy parents"),
        "topics": ("20-minute hiit at home", "no equipment full body workout", "bodyweight leg burner", "resistance band upper body", "burpee challenge", "living room workout for beginners", "apartment-friendly hiit", "7-day home workout plan"),
        "tips": ("No equipment needed, just a mat.", "Work for 40 seconds and rest for 20.", "Land softly on every burpee.", "Use a resistance band for extra burn.", "Bodyweight squats count, do them slowly.", "Hiit twice a week is plenty."),
        "tags": ("homeworkout", "hiit", "bodyweight", "noequipment"),
        "stems": ("hiit", "homegym", "sweat", "burpee", "fit", "fitness", "workout"),
    },
    "food.baking": {
        "bio": ("Sourdough nerd and weekend pastry baker", "Baking cakes, cookies and bread from scratch", "Home baker | croissant experiments"),
        "topics": ("sourdough bread for beginners", "brown butter cookies", "crème brûlée at home", "laminated croissant dough", "birthday cake layers", "no-knead bread", "lemon drizzle cake", "cinnamon brioche rolls"),
        "tips": ("Weigh your flour, never scoop it.", "Let the dough rest overnight in the fridge.", "Preheat the oven for twenty minutes.", "Brown butter makes every cookie better.", "Bake bread until it sounds hollow.", "Cold butter means flaky pastry."),
        "tags": ("baking", "sourdough", "bread", "cake"),
        "stems": ("bake", "baking", "sourdough", "pastry", "bread", "cake"),
    },
    "food.home_cooking": {
        "bio": ("Weeknight dinner ideas in 30 minutes", "Easy one pot recipes for real life", "Cooking dinner for four on a budget"),
        "topics": ("one pot creamy pasta", "jalapeño chicken tacos", "15-minute stir fry", "sheet pan dinner", "weeknight skillet gnocchi", "sunday mealprep", "garlic butter pasta", "spicy jalapeño poppers"),
        "tips": ("Salt your pasta water generously.", "Prep everything before the pan is hot.", "A squeeze of lime fixes a flat taco.", "Save a cup of pasta water.", "Use one pot and fewer dishes.", "Let the skillet get really hot first."),
        "tags": ("dinner", "recipe", "pasta", "easyrecipes"),
        "stems": ("cook", "kitchen", "dinner", "chef", "recipes"),
    },
    "food.vegan": {
        "bio": ("Plant based recipes anyone will eat", "Vegan comfort food, dairy free always", "Vegetarian + vegan meal ideas"),
        "topics": ("crispy tofu bowl", "vegan mac and cheese", "chickpea curry", "lentil bolognese", "dairy free chocolate mousse", "açaí breakfast bowl", "tempeh tacos", "plant based protein meal prep"),
        "tips": ("Press your tofu for crispy edges.", "Cashews make any sauce creamy and vegan.", "Lentils cook in twenty minutes.", "Roast chickpeas until they crunch.", "Nutritional yeast adds a cheesy taste.", "Plant based meals can be high protein."),
        "tags": ("vegan", "plantbased", "tofu", "vegetarian"),
        "stems": ("vegan", "plant", "tofu", "veggie"),
    },
    "food.coffee": {
        "bio": ("Home barista. Espresso all day.", "Coffee reviews from every café I visit", "Latte art and cold brew experiments"),
        "topics": ("latte art heart", "café-style iced latte", "cold brew concentrate", "espresso dialing in", "pour over for beginners", "matcha latte at home", "cappuccino foam", "best café beans this month"),
        "tips": ("Grind your coffee right before brewing.", "Aim for a thirty second espresso shot.", "Steam milk until the jug feels hot.", "Cold brew needs twelve hours.", "Pour slowly in circles for pour over.", "Fresh beans change everything."),
        "tags": ("coffee", "espresso", "latte", "barista"),
        "stems": ("coffee", "espresso", "latte", "barista", "brew", "bean"),
    },
    "beauty.makeup": {
        "bio": ("Makeup artist | everyday glam", "Eyeliner tutorials for hooded eyes", "GRWM and drugstore makeup"),
        "topics": ("winged eyeliner for hooded eyes", "five minute makeup", "drugstore foundation test", "soft glam grwm", "lipstick that lasts all day", "contour for beginners", "mascara comparison", "concealer tricks"),
        "tips": ("Start eyeliner from the outer corner.", "Set concealer with a little powder.", "Blend contour upward, never down.", "Blush on the cheekbones lifts the face.", "Curl lashes before mascara.", "Less foundation looks more natural."),
        "tags": ("makeup", "grwm", "eyeliner", "makeuptutorial"),
        "stems": ("makeup", "glam", "mua", "lipstick", "liner"),
    },
    "beauty.skincare": {
        "bio": ("Skincare that actually works for acne", "Dermatology nurse | sunscreen evangelist", "Simple skincare routines, SPF daily"),
        "topics": ("morning skincare routine", "retinol for beginners", "sunscreen under makeup", "acne skincare routine", "niacinamide serum test", "glass skin steps", "double cleanser method", "moisturizer for dry skin"),
        "tips": ("Wear SPF every single day.", "Start retinol twice a week.", "Cleanser first, serum second.", "Moisturizer goes on damp skin.", "Patch test every new serum.", "Do not pick at acne."),
        "tags": ("skincare", "spf", "skincareroutine", "acne"),
        "stems": ("skin", "glow", "derm", "spf"),
    },
    "beauty.hair": {
        "bio": ("Hairstylist | curly hair specialist", "Hair tutorials: braids, blowouts, curls", "Healthy hair and scalp care"),
        "topics": ("heatless curls overnight", "curly hair wash day", "five minute braid", "salon blowout at home", "haircut transformation", "scalp care routine", "claw clip hairstyle", "frizz free curls"),
        "tips": ("Sleep on silk to keep curls.", "Brush hair from the ends up.", "Use heat protectant every time.", "Braid while the hair is slightly damp.", "Massage your scalp while you wash.", "Trim every ten weeks."),
        "tags": ("hair", "hairstyle", "curlyhair", "hairtok"),
        "stems": ("hair", "curl", "braid", "locks"),
    },
    "fashion.streetwear": {
        "bio": ("Streetwear fits and sneaker drops", "Sneaker collector | hoodie season all year", "Fit check every Friday"),
        "topics": ("sneaker rotation", "fit check with cargo pants", "jordan release unboxing fits", "hoodie layering", "baggy jeans outfit", "streetwear on a budget", "sneaker cleaning", "five hypebeast essentials"),
        "tips": ("Baggy jeans need a fitted top.", "Match your sneaker to one other piece.", "Layer a hoodie under a jacket.", "Cargo pants work with almost every sneaker.", "Keep your outfit to three colours.", "Clean sneakers make any fit."),
        "tags": ("streetwear", "sneakers", "fitcheck", "ootd"),
        "stems": ("sneaker", "street", "kicks", "drip", "hype"),
    },
    "fashion.thrifting": {
        "bio": ("Thrifted outfits and vintage finds", "Secondhand only since 2019", "Thrift haul every week + upcycled pieces"),
        "topics": ("thrift haul", "vintage denim find", "thrift with me", "upcycled thrifted jacket", "charity shop outfit challenge", "secondhand wardrobe", "vintage market finds", "thrift flip skirt"),
        "tips": ("Check the seams before you buy.", "Thrift on weekday mornings.", "Look in the men's section too.", "Vintage sizes run small.", "Upcycle anything with a good fabric.", "Secondhand is the cheapest wardrobe."),
        "tags": ("thrift", "thrifted", "vintage", "thrifthaul"),
        "stems": ("thrift", "vintage", "secondhand", "preloved"),
    },
    "travel.backpacking": {
        "bio": ("Solo travel on a budget | 40 countries", "Backpacker sharing hostel reviews", "Carry on only, budget travel forever"),
        "topics": ("backpacking Southeast Asia", "hostel review", "solo travel safety", "carry on packing list", "budget travel in Europe", "overnight bus survival", "backpacking São Paulo", "backpack essentials"),
        "tips": ("Pack half of what you planned.", "Book the first hostel night only.", "Carry on only saves hours.", "Use the overnight bus to save a night.", "Solo travel gets easier after day three.", "Keep copies of your passport."),
        "tags": ("backpacking", "solotravel", "budgettravel", "travel"),
        "stems": ("backpack", "nomad", "hostel", "wander"),
    },
    "travel.city_guides": {
        "bio": ("City guides: hidden gems and local spots", "Museum lover | weekend itinerary maker", "Things to do in every neighborhood"),
        "topics": ("48 hours in Lisbon city guide", "hidden gem rooftop bars", "free museum days", "old town walking route", "things to do in Zürich", "local spot breakfast", "neighborhood guide to Mexico City", "weekend itinerary in Paris"),
        "tips": ("Walk the old town before nine.", "Museums are free on the first Sunday.", "Ask locals for their favourite spot.", "Rooftop bars are quieter at sunset.", "Pick one neighborhood per day.", "Book popular museum tickets ahead."),
        "tags": ("cityguide", "travel", "hiddengems", "thingstodo"),
        "stems": ("city", "guide", "local", "explore"),
    },
    "travel.vanlife": {
        "bio": ("Vanlife couple + one dog", "Van build, road trip and camping", "Full time campervan living"),
        "topics": ("van build tour", "road trip across Utah", "free campsite finds", "campervan kitchen setup", "vanlife morning routine", "overlanding gear", "camping in the rain", "solar setup for van life"),
        "tips": ("Level the van before you sleep.", "Fill water whenever you can.", "Arrive at campsites before dark.", "Solar panels love a clean roof.", "Road trip days are shorter than you think.", "Store everything before you drive."),
        "tags": ("vanlife", "campervan", "roadtrip", "camping"),
        "stems": ("van", "camper", "roadtrip", "camp", "overland"),
    },
    "pets.dogs": {
        "bio": ("Golden retriever and his human", "Dog training tips for new puppy owners", "Rescue dog mom"),
        "topics": ("puppy first week", "leash training basics", "golden retriever zoomies", "dog training recall", "teaching fetch", "rescue dog update", "puppy biting fix", "dog birthday party"),
        "tips": ("Reward the dog within two seconds.", "Keep puppy training sessions short.", "A tired dog is a calm dog.", "Use the same word for every command.", "Practice leash walks indoors first.", "Never punish a puppy for mistakes."),
        "tags": ("dog", "puppy", "dogsoftiktok", "dogtraining"),
        "stems": ("dog", "pup", "woof", "doggo", "paws"),
    },
    "pets.cats": {
        "bio": ("Two cats, zero chill", "Cat behavior explained by a vet tech", "Kitten foster mom"),
        "topics": ("kitten's first day home", "cat zoomies at 3am", "litter box tips", "catnip reaction test", "why cats purr", "cat enrichment toys", "introducing two cats", "meow translation"),
        "tips": ("Keep one litter box per cat plus one.", "Cats love vertical space.", "A purr can also mean stress.", "Play with your cat before bed.", "Introduce new cats slowly.", "Kittens need lots of small meals."),
        "tags": ("cat", "kitten", "catsoftiktok", "cattok"),
        "stems": ("cat", "kitty", "meow", "kitten", "purr"),
    },
}  # fmt: skip
