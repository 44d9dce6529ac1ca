// Word lists for the synthetic chat corpus: everyday topics, English and Chinese.
const list = (text) => text.trim().split(/\s+/);

export const EN_NOUNS = list(`
  coffee tea breakfast lunch dinner noodles rice dumplings soup salad sandwich pizza burger pasta
  bread toast cereal yogurt cheese butter jam honey egg omelette pancake waffle muffin cookie cake
  pie chocolate candy snack popcorn chips fries steak chicken beef pork lamb fish salmon tuna shrimp
  crab lobster tofu beans lentils potato tomato onion garlic ginger carrot cabbage lettuce spinach
  broccoli cucumber pepper mushroom corn pumpkin apple banana orange lemon mango peach pear grape
  strawberry blueberry cherry watermelon melon pineapple coconut avocado kiwi plum apricot fig
  juice milk smoothie soda beer wine whisky cocktail water latte espresso cappuccino matcha boba
  restaurant cafe bakery bar canteen kitchen fridge oven stove microwave kettle blender toaster pan
  pot knife fork spoon chopsticks plate bowl cup mug glass bottle napkin recipe menu bill tip
  train bus subway taxi car bike scooter motorcycle plane airport station ticket passport visa
  luggage suitcase backpack hotel hostel airbnb beach mountain lake river island village city
  town museum gallery temple park garden zoo aquarium castle bridge tower harbour market mall
  street road highway traffic parking map route trip journey vacation holiday weekend tour guide
  office meeting deadline project report email calendar schedule boss manager colleague team
  client customer contract budget invoice salary bonus promotion interview resume internship
  presentation slide spreadsheet document printer laptop desk chair monitor keyboard mouse
  headphones charger cable phone tablet camera watch speaker router password account app website
  server database bug feature release update backup cloud code script terminal browser game
  console controller movie film series episode show season trailer cinema concert festival
  album song playlist podcast radio guitar piano violin drum ukulele band singer actor director
  novel book magazine newspaper comic poem story author chapter library bookstore notebook pen
  pencil eraser paper envelope stamp letter parcel package delivery courier receipt coupon
  discount sale price shop store supermarket pharmacy clinic hospital doctor nurse dentist
  medicine pill vitamin headache fever cough cold flu allergy injury knee ankle shoulder back
  neck tooth eye ear skin hair nail massage therapy appointment checkup vaccine insurance
  gym workout yoga pilates run marathon race swim pool tennis badminton basketball football
  soccer volleyball baseball golf hike climb trail tent campfire sleepingbag jacket coat sweater
  hoodie shirt tshirt jeans trousers shorts skirt dress socks shoes sneakers boots sandals hat
  scarf gloves umbrella sunglasses ring necklace bracelet earrings wallet purse bag belt
  apartment flat house room bedroom bathroom balcony roof window door wall floor ceiling stairs
  elevator sofa couch bed pillow blanket curtain lamp carpet mirror shelf drawer closet wardrobe
  plant flower cactus tree grass seed pot soil fertilizer vase candle rent landlord neighbour
  roommate lease deposit repair plumber electrician cleaner vacuum broom mop detergent laundry
  dog cat puppy kitten rabbit hamster parrot goldfish turtle horse cow sheep goat pig duck bird
  mother father mom dad sister brother grandma grandpa aunt uncle cousin nephew niece son
  daughter baby husband wife boyfriend girlfriend partner friend classmate teacher student
  professor school university class lesson homework exam test grade degree course lecture
  weather rain snow sun wind storm thunder fog cloud rainbow temperature heat humidity season
  spring summer autumn winter morning afternoon evening night midnight sunrise sunset moon star
  birthday anniversary wedding party gift present surprise card balloon ceremony funeral
  christmas newyear festival lantern firework dragon mooncake holiday
  money cash card bank loan debt savings investment stock fund crypto tax pension mortgage
  news politics election economy inflation price job career hobby habit goal plan dream idea
  problem question answer reason mistake accident chance luck memory feeling mood stress anxiety
  sleep nap dream alarm clock minute hour day week month year decade moment
  photo picture video selfie post comment message chat group call voicemail notification
  language english chinese japanese french spanish german word sentence grammar accent
  painting drawing sketch photography pottery knitting sewing baking cooking gardening fishing
  chess puzzle cards boardgame karaoke dance ballet opera theatre circus magic
  river fountain hill valley forest desert ocean sea coast cliff cave waterfall volcano
`);

export const EN_VERBS = list(`
  buy sell cook bake eat drink order try taste share finish start stop begin continue visit
  book cancel plan pack unpack travel fly drive ride walk run jog swim climb hike cycle skate
  read write draw paint sing play watch listen learn study teach practise review revise memorize
  fix repair clean wash dry fold iron sweep mop tidy organize move carry lift drop throw catch
  call text email message reply answer ask tell explain describe mention remember forget remind
  meet invite join leave skip miss wait hurry relax rest sleep wake nap stretch breathe
  check test debug deploy install upgrade download upload save delete restore backup refresh
  borrow lend return rent pay spend save earn owe split count measure weigh compare choose
  pick decide change switch keep lose find search hide show open close lock unlock turn push
  pull press hold shake mix stir chop slice boil fry grill roast steam freeze heat cool
  water plant grow cut trim feed adopt train brush bathe groom
  celebrate decorate wrap send receive deliver ship track print scan sign fill submit apply
  hire quit retire promote manage lead support help thank apologize forgive complain argue
  agree disagree discuss negotiate guess hope wish worry doubt believe trust enjoy love hate
  like prefer miss recommend suggest avoid allow refuse accept offer promise prepare practice
`);

export const EN_ADJECTIVES = list(`
  good great nice bad terrible awful amazing awesome fantastic wonderful lovely cute pretty
  beautiful ugly weird strange funny silly boring interesting exciting scary quiet loud noisy
  busy calm lazy tired sleepy hungry thirsty full sick healthy fit sore happy sad angry upset
  nervous anxious relaxed excited bored lonely proud grateful sorry jealous shy brave careful
  hot cold warm cool chilly freezing humid dry wet rainy sunny cloudy windy foggy snowy
  big small huge tiny long short tall low high wide narrow thick thin heavy light soft hard
  smooth rough sharp dull clean dirty messy neat tidy fresh stale old new young ancient modern
  cheap expensive pricey affordable free fancy simple plain complicated easy difficult tricky
  fast slow quick early late sudden regular weekly daily monthly yearly rare common popular
  famous local foreign strange spicy sweet salty sour bitter bland crispy crunchy juicy greasy
  delicious tasty yummy gross raw cooked frozen homemade organic vegan vegetarian
  comfortable cozy crowded empty safe dangerous broken perfect fine okay decent average
  bright dark colourful red blue green yellow purple pink black white grey brown golden silver
  strong weak gentle kind rude polite honest friendly helpful useful useless important urgent
  serious casual formal private public real fake true false possible impossible ready
`);

export const EN_TIME_WORDS = list(`
  today tonight tomorrow yesterday recently lately sometimes usually always never often soon
  later earlier already finally maybe probably definitely honestly actually basically
`);

export const EN_NAMES = list(`
  Alice Ben Chloe Daniel Emma Felix Grace Henry Isla Jack Kate Leo Mia Noah Olivia Paul Quinn
  Ruby Sam Tom Uma Victor Wendy Xavier Yara Zoe Aaron Bella Carlos Diana Ethan Fiona George
  Hannah Ivan Julia Kevin Laura Mark Nina Oscar Priya Ryan Sara Tim Vera Will Amy Brian Clara
  Derek Elena Frank Gina Hugo Iris Jason Kara Luke Maya Nate
`);

export const ZH_NOUNS = list(`
  咖啡 奶茶 早饭 午饭 晚饭 面条 米饭 饺子 包子 馒头 粥 汤 火锅 烧烤 串串 麻辣烫 凉面 抄手 担担面
  炒饭 盖饭 便当 外卖 零食 饼干 蛋糕 面包 巧克力 冰淇淋 水果 苹果 香蕉 橙子 西瓜 葡萄 草莓 芒果
  桃子 梨 柠檬 菠萝 榴莲 荔枝 樱桃 蓝莓 猕猴桃 鸡蛋 牛奶 酸奶 豆浆 油条 豆腐 青菜 白菜 土豆
  番茄 黄瓜 茄子 辣椒 洋葱 大蒜 生姜 蘑菇 玉米 南瓜 胡萝卜 鸡肉 牛肉 猪肉 羊肉 鱼 虾 螃蟹 排骨
  啤酒 红酒 白酒 果汁 可乐 矿泉水 绿茶 红茶 乌龙茶 菊花茶 柠檬水 拿铁 美式 蛋挞 月饼 粽子 汤圆
  餐厅 饭馆 食堂 厨房 冰箱 烤箱 微波炉 电饭锅 炒锅 菜刀 筷子 勺子 碗 盘子 杯子 保温杯 菜单 账单
  地铁 公交 出租车 高铁 火车 飞机 机场 车站 站台 车票 机票 护照 签证 行李 行李箱 背包 酒店 民宿
  海边 山 湖 河 岛 古镇 城市 小区 博物馆 美术馆 寺庙 公园 花园 动物园 水族馆 商场 超市 菜市场
  便利店 药店 书店 图书馆 电影院 健身房 游泳池 体育馆 操场 医院 诊所 银行 邮局 快递站 派出所
  公司 办公室 会议 工位 老板 领导 同事 客户 项目 需求 方案 报告 周报 日报 文档 表格 邮件 合同
  预算 发票 工资 奖金 年终奖 加班 出差 面试 简历 实习 绩效 考核 团建 培训 汇报 演示 幻灯片
  电脑 笔记本 显示器 键盘 鼠标 耳机 充电器 数据线 手机 平板 相机 手表 音箱 路由器 密码 账号
  软件 网站 服务器 数据库 代码 脚本 接口 版本 需求单 测试 上线 备份 云盘 浏览器 游戏 主机 手柄
  电影 电视剧 综艺 纪录片 动画 演唱会 音乐节 专辑 歌 歌手 演员 导演 播客 直播 短视频 小说 漫画
  杂志 报纸 书 笔记本子 钢笔 铅笔 橡皮 信封 包裹 快递 收据 优惠券 折扣 价格 会员 积分 红包
  医生 护士 牙医 药 感冒药 维生素 头疼 发烧 咳嗽 感冒 过敏 膝盖 脚踝 肩膀 腰 脖子 牙 眼睛 皮肤
  头发 指甲 按摩 体检 疫苗 保险 挂号 跑步 马拉松 半马 游泳 瑜伽 羽毛球 乒乓球 篮球 足球 网球
  爬山 徒步 露营 帐篷 骑行 滑雪 钓鱼 外套 羽绒服 毛衣 卫衣 衬衫 裤子 裙子 袜子 鞋 运动鞋 靴子
  帽子 围巾 手套 雨伞 墨镜 戒指 项链 手链 耳环 钱包 包 房子 房间 卧室 客厅 卫生间 阳台 窗户
  门 墙 地板 楼梯 电梯 沙发 床 枕头 被子 窗帘 台灯 地毯 镜子 书架 抽屉 衣柜 植物 花 多肉 绿萝
  房租 房东 邻居 室友 押金 水电费 物业 维修 洗衣机 吸尘器 扫地机 洗衣液 狗 猫 小狗 小猫 兔子
  仓鼠 鹦鹉 金鱼 乌龟 妈妈 爸爸 姐姐 哥哥 妹妹 弟弟 奶奶 爷爷 外婆 外公 阿姨 叔叔 表姐 表弟
  儿子 女儿 宝宝 老公 老婆 男朋友 女朋友 朋友 同学 老师 学生 教授 学校 大学 课 作业 考试 成绩
  论文 学位 讲座 天气 雨 雪 太阳 风 台风 雷阵雨 雾霾 彩虹 温度 春天 夏天 秋天 冬天 早上 中午
  下午 晚上 半夜 日出 日落 月亮 星星 生日 纪念日 婚礼 聚会 礼物 惊喜 贺卡 春节 中秋 端午 国庆
  元宵 圣诞 跨年 烟花 灯笼 钱 现金 信用卡 贷款 存款 理财 股票 基金 房贷 新闻 经济 工作 爱好
  习惯 目标 计划 梦想 想法 问题 答案 原因 错误 意外 机会 运气 回忆 心情 压力 焦虑 睡眠 午觉
  闹钟 照片 视频 自拍 朋友圈 评论 消息 群聊 电话 语音 通知 英语 中文 日语 单词 语法 口音 画画
  素描 摄影 陶艺 织毛衣 烘焙 做饭 种花 下棋 拼图 桌游 剧本杀 密室 唱歌 跳舞 话剧 魔术 瀑布
  森林 沙漠 大海 海岸 悬崖 山洞 火山 草原 雪山 温泉 夜市 小吃街 步行街 景点 门票 攻略 导航
`);

export const ZH_VERBS = list(`
  买 卖 做 吃 喝 点 尝 分享 完成 开始 停 继续 去 逛 订 取消 安排 收拾 出发 回来 坐 开 骑 走 跑
  游 爬 看 听 读 写 画 唱 玩 学 复习 背 修 洗 晾 叠 熨 扫 拖 整理 搬 拿 扔 接 打电话 发消息
  回复 问 说 解释 提到 记得 忘了 提醒 见 约 请 参加 离开 错过 等 休息 睡 起床 午睡 拉伸
  检查 调试 部署 安装 升级 下载 上传 保存 删除 恢复 刷新 借 还 租 付 花 存 赚 欠 选 决定
  换 留 丢 找 藏 打开 关 锁 按 拌 切 煮 炒 烤 蒸 冻 热 浇水 种 剪 喂 领养 遛 洗澡 庆祝 布置
  包 寄 收 送 追 打印 扫描 签 填 提交 申请 招 辞职 退休 管 带 支持 帮 谢谢 道歉 原谅 抱怨
  吵架 同意 讨论 商量 猜 希望 担心 相信 享受 喜欢 讨厌 推荐 建议 避免 拒绝 接受 答应 准备
  练 报名 预约 排队 打卡 加班 请假 出差 开会 汇报 面试 搬家 装修 打扫 下单 退货 充值 转账
`);

export const ZH_ADJECTIVES = list(`
  好 棒 不错 糟糕 厉害 可爱 漂亮 好看 难看 奇怪 好笑 无聊 有趣 刺激 吓人 安静 吵 忙 闲 懒 累
  困 饿 渴 饱 舒服 难受 健康 开心 难过 生气 紧张 放松 兴奋 孤单 骄傲 感动 尴尬 害羞 勇敢 小心
  热 冷 暖和 凉快 闷热 干燥 潮湿 大 小 长 短 高 矮 宽 窄 厚 薄 重 轻 软 硬 干净 脏 乱 整齐 新鲜
  旧 新 便宜 贵 划算 简单 复杂 容易 难 快 慢 早 晚 辣 甜 咸 酸 苦 淡 脆 香 好吃 难吃 清淡 油腻
  热闹 拥挤 空 安全 危险 坏 完美 一般 亮 暗 红 蓝 绿 黄 紫 粉 黑 白 灰 强 弱 温柔 善良 客气
  友好 有用 重要 紧急 认真 随便 正式 靠谱 离谱 麻烦 顺利 幸运 倒霉 精彩 失望 满意 着急
`);

export const ZH_TIME_WORDS = list(`
  今天 昨天 前天 明天 后天 上周 这周 下周 上个月 这个月 下个月 去年 今年 周末 早上 晚上 刚才 最近
  那阵子 前几天 月初 月底 年底 春节前 三月 五月 八月 十月
`);

export const ZH_NAMES = list(`
  小王 小李 小张 小刘 小陈 小杨 小赵 小黄 小周 小吴 阿杰 阿明 阿花 阿强 阿珍 阿伟 老王 老李 老张
  老陈 王姐 李哥 张阿姨 刘叔 陈老师 林老师 周总 吴经理 晓雯 思琪 雨萱 子涵 浩然 宇轩 梓萱 欣怡
  一帆 嘉怡 俊杰 志强 美玲 丽娜 文博 佳琪 明轩 诗涵 天宇 若曦 可馨 雅婷
`);

export const EN_COMMON = list(`
  the a an and or but so i you we my your it is was are to of in on at for with about what when
  where who how why did do does that this there here not just really very
`);

export const ZH_COMMON = list(`
  我 你 他 她 我们 的 了 是 在 有 没有 什么 怎么 哪里 为什么 这个 那个 就 也 都 还 很 太 吧 吗 呢
`);

export const ZH_PLACES = list(`
  春熙路 太古里 宽窄巷子 锦里 人民公园 青城山 都江堰 九眼桥 天府广场 望江楼 西湖 外滩 南京路
  三里屯 故宫 颐和园 鼓浪屿 洱海 大理 丽江 厦门 杭州 上海 北京 深圳 广州 重庆 西安 长沙 武汉
`);

export const EN_PLACES = list(`
  Brooklyn Soho Camden Shoreditch Kyoto Osaka Lisbon Porto Seville Vienna Prague Berlin Munich
  Dublin Edinburgh Oslo Helsinki Toronto Vancouver Seattle Portland Austin Chicago Boston Denver
`);

export function distinctWordCount() {
  const all = new Set(
    [EN_NOUNS, EN_VERBS, EN_ADJECTIVES, EN_TIME_WORDS, EN_NAMES, EN_COMMON, EN_PLACES,
      ZH_NOUNS, ZH_VERBS, ZH_ADJECTIVES, ZH_TIME_WORDS, ZH_NAMES, ZH_COMMON, ZH_PLACES].flat(),
  );
  return all.size;
}
